package yamlx

import "testing"

// TestWriterTextMatchesMarshal checks Writer.Text and Writer.Quoted against
// Marshal for text starting with every printable ASCII byte (the writer
// covers all text; before, text starting with '{' fell back to yaml.v3's
// emitter, which allocated 150 times the golden's size).
func TestWriterTextMatchesMarshal(t *testing.T) {
	var texts []string
	for c := byte(' ' + 1); c < 0x7f; c++ {
		for _, rest := range []string{"", "x", "1", " y", ": z", "0.5", "s"} {
			texts = append(texts, string(c)+rest)
		}
	}
	for _, s := range texts {
		for _, quoted := range []bool{false, true} {
			n := Text(s)
			if quoted {
				n = Quoted(s)
			}
			want, err := Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			var w Writer
			if quoted {
				w.Quoted(s, false, 2)
			} else {
				w.Text(s, false, 2)
			}
			if got := string(w.Buf) + "\n"; got != string(want) {
				t.Errorf("Text(%q) quoted=%v: writer %q, Marshal %q", s, quoted, got, want)
			}
		}
	}
}
