package harness

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"unsafe"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/internal/regularfile"
	"github.com/tapeloop/tapeloop/redact"
)

// streamGolden writes the outcome's golden, Golden(r)'s bytes, to emit in
// pieces as it is written, instead of building it whole: the writer hands
// on whole lines after a turn or a call (goldenWriter.spill), which are
// placed (placeGolden) and then redacted in the chunks redactGolden takes
// of the whole text (chunkEnd), so that what is held at once is about a
// chunk whatever the golden's size. A piece is emit's only during the
// call. ok is false, and nothing emitted, when the pieces would not add up
// to Golden's text: a place's folder holds a line break. The error is
// Golden's, after some pieces may have been emitted.
func (o *Outcome) streamGolden(r *redact.Redactor, emit func(piece []byte)) (ok bool, err error) {
	pl := newPlacer(o.Places)
	if !pl.lineLocal() {
		return false, nil
	}
	if r == nil {
		r = redact.New(nil)
	}
	// pending is the placed text from the start of a redaction chunk on.
	var pending []byte
	redactPending := func(final bool) {
		done := 0
		for done < len(pending) {
			end, ok := chunkEnd(pending[done:], final)
			if !ok {
				break
			}
			chunk := pending[done : done+end]
			// As in redactGolden: the chunk's memory seen as a string.
			text := unsafe.String(&chunk[0], len(chunk))
			if red := r.Quiet(text); red != text {
				chunk = []byte(red)
			}
			emit(chunk)
			done += end
		}
		pending = pending[:copy(pending, pending[done:])]
	}
	w := &goldenWriter{buf: make([]byte, 0, 2*spillAt)}
	w.sink = func(lines []byte) {
		pending = append(pending, pl.apply(lines)...)
		redactPending(false)
	}
	if err := o.writeGoldenTo(w); err != nil {
		return true, err
	}
	pending = append(pending, pl.apply(w.buf)...)
	redactPending(true)
	return true, nil
}

// sameAsGolden reports whether the outcome's golden, Golden(r), is the
// file at path byte for byte, reading the file as the golden is written
// (streamGolden) so that neither is held whole. It is false when they
// differ and when it cannot tell: the file is missing, a link or not a
// regular file, longer than maxGoldenSize, or streamGolden cannot stream;
// the caller then compares them whole, with its messages. The error is
// Golden's.
func (o *Outcome) sameAsGolden(path string, r *redact.Redactor) (bool, error) {
	f, err := regularfile.OpenNoFollow(path)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	same, n := true, 0
	var read []byte
	ok, err := o.streamGolden(r, func(piece []byte) {
		if n += len(piece); !same || n > maxGoldenSize {
			same = false
			return
		}
		read = slices.Grow(read[:0], len(piece))[:len(piece)]
		if _, err := io.ReadFull(f, read); err != nil || !bytes.Equal(read, piece) {
			same = false
		}
	})
	if err != nil || !ok || !same {
		return false, err
	}
	// The file ends where the golden does.
	k, _ := f.Read(make([]byte, 1))
	return k == 0, nil
}

// createGolden writes the outcome's golden, Golden(r)'s bytes, to a new
// file at path as it is written (streamGolden), through a temporary file
// renamed into place: what an update does for a scenario with no golden
// yet, which needs neither the old file's redacted lines
// (keepRedactedLines) nor a diff, so the golden is never held whole.
// created is false, and nothing written, when the golden cannot stream;
// the caller then builds it whole. An error is Golden's (wrapping
// errGoldenText) or names path, ErrTooLarge past maxGoldenSize as
// updateGolden's.
func (o *Outcome) createGolden(path string, r *redact.Redactor) (created bool, err error) {
	p, err := atomicfile.Create(path)
	if err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	defer p.Cleanup()
	n := 0
	var writeErr error
	ok, err := o.streamGolden(r, func(piece []byte) {
		if writeErr != nil {
			return
		}
		if n += len(piece); n > maxGoldenSize {
			writeErr = goldenTooLarge(path, "more than")
			return
		}
		if _, err := p.Write(piece); err != nil {
			writeErr = fmt.Errorf("writing %s: %w", path, err)
		}
	})
	switch {
	case !ok:
		return false, nil
	case err != nil:
		return false, err
	case writeErr != nil:
		return false, writeErr
	}
	if err := p.Commit(); err != nil {
		return false, fmt.Errorf("writing %s: %w", path, err)
	}
	return true, nil
}
