package yamlx

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/fileerr"
)

// position returns the 1-based line and column (in bytes) of offset i of data.
func position(data []byte, i int) (line, col int) {
	line = 1 + bytes.Count(data[:i], []byte("\n"))
	return line, i - (bytes.LastIndexByte(data[:i], '\n') + 1) + 1
}

// checkText finds what yaml.v3 refuses without saying where: a byte that is
// not UTF-8, and a raw control character (anything below U+0020 but tab, line
// feed and carriage return; DEL; C1 controls but U+0085), which YAML allows
// only escaped in a double-quoted string.
func (d *Decoder) checkText(data []byte) error {
	for i := 0; i < len(data); {
		if i+8 <= len(data) {
			// The common case, eight bytes at a time: printable ASCII,
			// skipped up to the first byte that is not.
			if n := printablePrefix(binary.LittleEndian.Uint64(data[i:])); n > 0 {
				i += n
				continue
			}
		}
		if c := data[i]; c < utf8.RuneSelf && !asciiRefused[c] {
			i++ // the common case: printable ASCII, tab or a line break
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			line, col := position(data, i)
			return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: fmt.Sprintf("invalid UTF-8 (byte %#x at column %d); write text that is not UTF-8 as !!binary", data[i], col)}
		}
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0 && r != 0x85) {
			line, col := position(data, i)
			return &fileerr.Error{Kind: ErrFormat, File: d.File, Line: line, Problem: fmt.Sprintf(`raw control character U+%04X at column %d; write it as \u%04x in a double-quoted string`, r, col, r)}
		}
		i += size
	}
	return nil
}

// printablePrefix returns how many of the eight bytes of w, read in little-
// endian order (the first byte is the lowest), are printable ASCII (0x20 to
// 0x7e) before the first that is not; 8 when all are. It tests the eight
// at once: a byte with its high bit set, a byte below 0x20 (subtracting
// 0x20 from it borrows into its high bit) and DEL (0x7f, which xor 0x7f
// turns into a zero byte, which borrows likewise) each mark that byte's
// high bit. A borrow can mark a byte above a marked one too, never one
// below it, so the lowest mark is exact ("determine if a word has a byte
// less than n" in Sean Anderson's Bit Twiddling Hacks).
func printablePrefix(w uint64) int {
	const ones = 0x0101010101010101
	const highs = 0x80 * ones
	del := w ^ 0x7f*ones
	marks := w&highs | (w-0x20*ones)&^w&highs | (del-ones)&^del&highs
	return bits.TrailingZeros64(marks) / 8
}

// asciiRefused marks the ASCII bytes checkText refuses: the controls but
// tab, line feed and carriage return, and DEL.
var asciiRefused = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f
	}
	return t
}()

// parserProblems are the problems of yaml.v3's parser (not its scanner)
// whose line it reports counted from 0, or not at all on the first line.
// ("did not find expected node content" is left out: its line is that of the
// token after the missing node, which at the end of the file is the last.)
var parserProblems = []string{
	"did not find expected <document start>",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found undefined tag handle",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// isParserProblem reports whether a problem is one of parserProblems.
func isParserProblem(problem string) bool {
	for _, p := range parserProblems {
		if problem == p {
			return true
		}
	}
	return false
}

var unknownAnchor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown anchor '(.*)' referenced$`) })

// anchorLine returns the line of the first alias of anchor in data, 0 when
// none is found.
func anchorLine(data []byte, anchor string) int {
	alias := []byte("*" + anchor)
	for off := 0; ; {
		i := bytes.Index(data[off:], alias)
		if i < 0 {
			return 0
		}
		end := off + i + len(alias)
		if end == len(data) || strings.IndexByte(" \t\r\n,]}", data[end]) >= 0 {
			line, _ := position(data, off+i)
			return line
		}
		off = end
	}
}
