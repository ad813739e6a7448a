package wire

import (
	"bytes"
	"encoding/json"
	"io"
)

// A request body repeats the previous one's messages before its new ones.
// The Decoder does not scan them again: it decodes a shorter text in which
// the messages array's leading elements that are byte for byte the
// previous request's are replaced by the one element 0, and puts the
// previous request's elements back in their place. The shortcut is taken
// only when it provably gives what decoding the whole body gives:
//
//   - the body starts with the previous body's head: the bytes up to and
//     including the '[' that opened its messages array, found by where
//     encoding/json handed that array to the decoder (so the parser is in
//     the same state there, inside the array of the key that fills the
//     messages field);
//   - each skipped element is the previous one's bytes, a complete JSON
//     value, separated as JSON separates elements and followed by white
//     space, ',' or ']', so that it ends where that value ends (a number
//     1 followed by .5 would not);
//   - then the shorter text is JSON exactly when the body is (a valid value
//     ending in a delimiter stands where valid values stood), and decodes to
//     the same fields, but for that one array;
//   - and the messages field was filled exactly once, from the array that
//     starts where the head ends: no other key (a duplicate "messages", a
//     case variant such as "Messages") filled it, which would make the
//     later one win in the whole body.
//
// When the body also ends as the previous one did, from the ']' that closed
// its messages array on, only the new messages are read (see between).
// Anything else (an error, another key filling the field, a body that does
// not start with the head) decodes the whole body; an error is always the
// plain decode's, so its text is Decode's.

// rawList is a messages field read for the Decoder: each element as sent,
// how many times encoding/json filled the field (once per key naming it)
// and the last value it was given, as a slice of the decoded text.
type rawList struct {
	elems []json.RawMessage
	n     int
	at    []byte
}

// UnmarshalJSON keeps b's elements as []json.RawMessage would, counts the
// call and keeps b.
func (l *rawList) UnmarshalJSON(b []byte) error {
	l.n++
	l.at = b
	var elems []json.RawMessage
	if err := json.Unmarshal(b, &elems); err != nil {
		return err
	}
	l.elems = elems
	return nil
}

// bodyFuncs decode a request body of one format into the caller's request
// struct. counted decodes text into a struct whose messages field is a
// rawList, and returns it; plain decodes the whole body as json.Unmarshal
// into the format's request struct does, and returns its messages; keep
// returns the struct as decoded (its messages aside), and reuse sets it to
// one keep returned; fresh returns a new value to decode one element of
// the messages into (see elements).
type bodyFuncs struct {
	counted func(text []byte) (*rawList, error)
	plain   func() ([]json.RawMessage, error)
	keep    func() any
	reuse   func(any)
	fresh   func() any
}

// unmarshal decodes body with f, skipping the messages it shares with last
// when it can (see above), and returns what it decoded: the messages'
// elements (raw), the head and tail to remember for the next request (nil
// when unknown), the struct as decoded (req) and how many elements it
// skipped. A nil last decodes plainly.
func (last *decoded) unmarshal(body []byte, f bodyFuncs) (decoded, error) {
	if last == nil {
		raws, err := f.plain()
		return decoded{raw: raws}, err
	}
	if k, p := last.prefix(body); k > 0 {
		if next, ok := last.between(body, k, p, f); ok {
			return next, nil
		}
		text := make([]byte, 0, len(last.head)+1+len(body)-p)
		text = append(append(append(text, last.head...), '0'), body[p:]...)
		l, err := f.counted(text)
		if err == nil && l.n == 1 && at(text, l.at) == len(last.head)-1 && len(l.elems) > 0 && string(l.elems[0]) == "0" {
			raws := make([]json.RawMessage, 0, k+len(l.elems)-1)
			raws = append(append(raws, last.raw[:k]...), l.elems[1:]...)
			return decoded{head: last.head, tail: bytes.Clone(text[len(last.head)+len(l.at)-2:]), req: f.keep(), raw: raws, skipped: k, at: p}, nil
		}
	}
	l, err := f.counted(body)
	if err != nil {
		raws, err := f.plain()
		return decoded{raw: raws}, err
	}
	next := decoded{raw: l.elems}
	if l.n == 1 && len(l.at) > 0 && l.at[0] == '[' {
		if i := at(body, l.at); i >= 0 {
			next.head, next.tail, next.req = bytes.Clone(body[:i+1]), bytes.Clone(body[i+len(l.at)-1:]), f.keep()
		}
	}
	return next, nil
}

// between decodes body, whose first k messages (up to p) are last's, when
// it also ends with last's tail (from the ']' that closed the previous
// messages array to the end): the body is then JSON exactly when its
// elements between p and the tail, in brackets after a {}, are a JSON
// array (they continue the array from the same state, and the tail closes
// it and goes on as it did before, from the same state), and everything
// but the messages decodes to what the previous body's did (the same bytes
// around the one messages key). Only those elements are read, each once
// (see afterEmpty), and the messages are made from them as decoded there.
func (last *decoded) between(body []byte, k, p int, f bodyFuncs) (decoded, bool) {
	end := len(body) - len(last.tail)
	if last.tail == nil || p > end || !bytes.HasSuffix(body, last.tail) {
		return decoded{}, false
	}
	text := make([]byte, 0, end-p+4)
	text = append(append(append(text, '[', '{', '}'), body[p:end]...), ']')
	elems, vals, ok := afterEmpty(text, f.fresh)
	if !ok {
		return decoded{}, false
	}
	f.reuse(last.req)
	raws := make([]json.RawMessage, 0, k+len(elems))
	raws = append(append(raws, last.raw[:k]...), elems...)
	pre := make([]any, k, k+len(vals))
	pre = append(pre, vals...)
	return decoded{head: last.head, tail: last.tail, req: last.req, raw: raws, pre: pre, skipped: k, at: p, kept: true}, true
}

// afterEmpty reads text when it is a JSON array whose first element is
// {}, the empty object standing for the elements skipped (an object, not a
// number, as the decoder knows where an object ends without reading the
// byte after it, and so makes no error value to find that out): the other
// elements, each as its bytes in text and as decoded into a value
// fresh returned; ok is false when text is not such an array, or an element
// does not decode into its value. A json.Decoder validates each element as
// it reads it and decodes it from there, so that an element is scanned
// twice (checked, decoded), where splitting the array into raw elements
// and unmarshaling each would scan it four times. What it decodes is what
// json.Unmarshal of the element's bytes gives: the same decoding of the
// same bytes, which the decoder checked are one JSON value.
func afterEmpty(text []byte, fresh func() any) (elems []json.RawMessage, vals []any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(text))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, nil, false
	}
	var empty struct{}
	if dec.Decode(&empty) != nil || dec.InputOffset() != int64(len("[{}")) {
		return nil, nil, false
	}
	for dec.More() {
		from := int(dec.InputOffset()) // just after the element before
		v := fresh()
		if dec.Decode(v) != nil {
			return nil, nil, false
		}
		// The element starts after the white space and the comma that the
		// decoder went past, and ends where it stopped.
		from = skipSpace(text, from)
		if from < len(text) && text[from] == ',' {
			from = skipSpace(text, from+1)
		}
		elems = append(elems, text[from:dec.InputOffset()])
		vals = append(vals, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim(']') {
		return nil, nil, false
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, false
	}
	return elems, vals, true
}

// prefix returns how many leading elements of body's messages array are
// last's, and the offset just after the last of them; 0 when none are.
func (last *decoded) prefix(body []byte) (k, p int) {
	if len(last.head) == 0 || !bytes.HasPrefix(body, last.head) {
		return 0, 0
	}
	p = len(last.head)
	for ; k < len(last.raw); k++ {
		q := p
		if k > 0 {
			if q = skipSpace(body, q); q == len(body) || body[q] != ',' {
				break
			}
			q++
		}
		q = skipSpace(body, q)
		if !bytes.HasPrefix(body[q:], last.raw[k]) {
			break
		}
		if q += len(last.raw[k]); q == len(body) || !endsValue(body[q]) {
			break
		}
		p = q
	}
	return k, p
}

// skipSpace returns the offset of the first byte at or after i in b that is
// not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// endsValue reports whether c may follow an array element: white space, a
// comma or the closing bracket.
func endsValue(c byte) bool { return isSpace(c) || c == ',' || c == ']' }

// at returns where sub starts in s when sub is a slice of s's memory (as
// encoding/json hands an Unmarshaler its value), else -1.
func at(s, sub []byte) int {
	i := cap(s) - cap(sub)
	if len(sub) == 0 || i < 0 || i >= len(s) || &s[i] != &sub[0] {
		return -1
	}
	return i
}
