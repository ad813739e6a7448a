package redact

import "io"

// Writer returns an io.Writer that writes to w what it is given with every
// secret replaced by Redacted (uncounted, as Quiet). Each Write is redacted
// on its own, so a writer that prints line by line (fmt.Fprintf) is redacted
// line by line; a secret split over two writes is caught by the pieces
// rule. It reports len(p) written when w took the whole redacted text.
func (r *Redactor) Writer(w io.Writer) io.Writer { return &redactingWriter{r: r, w: w} }

type redactingWriter struct {
	r *Redactor
	w io.Writer
}

func (rw *redactingWriter) Write(p []byte) (int, error) {
	out := rw.r.Quiet(string(p))
	if _, err := io.WriteString(rw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
