package wire

// SkippedForTest decodes body with d and returns how many of its messages
// the decoder did not scan again (see skip.go).
func SkippedForTest(d *Decoder, path string, body []byte) (int, error) {
	_, err := d.Decode(path, body)
	f, _ := FormatOf(path)
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last[f].skipped, err
}
