package wire

// SkippedForTest decodes body with d and returns how many of its messages
// the decoder did not scan again, and whether it scanned nothing but the
// new ones (see skip.go).
func SkippedForTest(d *Decoder, path string, body []byte) (skipped int, onlyNew bool, err error) {
	_, skipped, onlyNew, err = DecodeSkippedForTest(d, path, body)
	return skipped, onlyNew, err
}

// DecodeSkippedForTest is SkippedForTest, returning the call as well.
func DecodeSkippedForTest(d *Decoder, path string, body []byte) (c *Call, skipped int, onlyNew bool, err error) {
	c, err = d.Decode(path, body)
	f, _ := FormatOf(path)
	d.mu.Lock()
	defer d.mu.Unlock()
	return c, d.last[f].skipped, d.last[f].kept, err
}

// DecodedOnceForTest returns how many messages of the last request in
// path's format were made from their elements as the decoder read them
// once (see afterEmpty), instead of unmarshaling their bytes again.
func DecodedOnceForTest(d *Decoder, path string) int {
	f, _ := FormatOf(path)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last[f].once
}

// DecodeWholeForTest is d.Decode with no reuse: body decoded whole, as
// Decode does, then a previous_response_id resolved from the responses d
// was told of (Keep). d's memory of previous requests is not used nor
// changed.
func DecodeWholeForTest(d *Decoder, path string, body []byte) (*Call, error) {
	f, r, ok := formatOf(path)
	if !ok {
		return Decode(path, body)
	}
	c, err := f.decode(body, r, nil)
	if err != nil {
		return nil, err
	}
	if c.PreviousResponseID != "" {
		d.mu.Lock()
		defer d.mu.Unlock()
		if err := d.resolve(c); err != nil {
			return nil, err
		}
	}
	return c, nil
}
