package harness

import (
	"bytes"
	"regexp"
	"unsafe"

	"github.com/tapeloop/tapeloop/redact"
)

// goldenChunk is about the most a golden's redaction looks at at once: it
// works in chunks of whole lines of about this size (a longer line is a
// chunk of its own), so that its working memory stays small however large
// the golden. A known secret broken over lines at a chunk's end is found as
// pieces at the ends of both.
const goldenChunk = 64 << 10

// redactGolden returns b with every secret r finds replaced, chunk by
// chunk; b itself when nothing is.
func redactGolden(b []byte, r *redact.Redactor) []byte {
	var out []byte
	for start := 0; start < len(b); {
		end, _ := chunkEnd(b[start:], true)
		end += start
		// The chunk is b's memory seen as a string, not a copy: b is not
		// changed while it is in use, and nothing keeps it after (an
		// unchanged chunk is dropped, a changed one copied into out).
		chunk := unsafe.String(&b[start], end-start)
		if red := r.Quiet(chunk); red != chunk || out != nil {
			if out == nil {
				out = append(make([]byte, 0, len(b)), b[:start]...)
			}
			out = append(out, red...)
		}
		start = end
	}
	if out == nil {
		return b
	}
	return out
}

// chunkEnd returns where the redaction chunk that starts b ends: after about
// goldenChunk bytes of whole lines (back to the last line break, or on to
// the next one for a line longer than a chunk), and never inside a PEM
// private key block (privateKeyEnd). b is the golden's text from the
// chunk's start on, all of it when final is set; when it is not (more text
// may follow), ok is false where the end depends on what follows, and the
// end returned with ok set is the one the whole text gives.
func chunkEnd(b []byte, final bool) (end int, ok bool) {
	end = min(goldenChunk, len(b))
	if end == len(b) {
		return end, final
	}
	if i := bytes.LastIndexByte(b[:end], '\n'); i >= 0 {
		end = i + 1
	} else if i := bytes.IndexByte(b[end:], '\n'); i >= 0 {
		end += i + 1
	} else if !final {
		return 0, false
	} else {
		end = len(b)
	}
	return privateKeyEnd(b, end, final)
}

// privateKeyMarker matches the BEGIN and END lines of a PEM private key
// block, as replay's redaction does, which takes a block whole across
// lines: from BEGIN to the first END after it, or to the end of the text.
var (
	privateKeyMarker = regexp.MustCompile(`-----(BEGIN|END) (?:[A-Z0-9]+ )*PRIVATE KEY-----`)
	privateKeyEndTag = regexp.MustCompile(`-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----`)
)

// privateKeyEnd returns where the chunk b[:end] ends so that it does not
// end inside a PEM private key block: end itself, or the end of the line
// that holds the END marker closing the block (the end of b when none
// does). Unless final, ok is false when that depends on text after b.
func privateKeyEnd(b []byte, end int, final bool) (int, bool) {
	chunk := b[:end]
	if !bytes.Contains(chunk, []byte("PRIVATE KEY-----")) {
		return end, true
	}
	// The block is open when the chunk's last marker is a BEGIN one.
	ms := privateKeyMarker.FindAllSubmatchIndex(chunk, -1)
	if len(ms) == 0 || chunk[ms[len(ms)-1][2]] != 'B' {
		return end, true
	}
	m := privateKeyEndTag.FindIndex(b[end:])
	if m == nil {
		return len(b), final
	}
	if nl := bytes.IndexByte(b[end+m[1]:], '\n'); nl >= 0 {
		return end + m[1] + nl + 1, true
	}
	return len(b), final
}
