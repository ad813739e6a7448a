package yamlx

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func parse(t *testing.T, src string) *yaml.Node {
	t.Helper()
	n, err := (&Decoder{File: "f.yaml"}).Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestDescribe(t *testing.T) {
	for src, want := range map[string]string{
		"2001-12-14": "a timestamp (2001-12-14)",
		"12":         "an integer (12)",
		"'x'":        `a string ("x")`,
		"[a]":        "a sequence",
	} {
		if got := Describe(parse(t, src)); got != want {
			t.Errorf("Describe(%s) = %q, want %q", src, got, want)
		}
	}
	if got := Describe(&yaml.Node{Kind: yaml.DocumentNode}); got != "a document" {
		t.Errorf("Describe(document) = %q", got)
	}
}

func TestStr(t *testing.T) {
	d := &Decoder{File: "f.yaml"}
	for _, c := range []struct{ src, want, err string }{
		{src: "hi", want: "hi"},
		{src: "null", want: ""},
		{src: "!!binary /w==", want: "\xff"},
		{src: "!!binary |\n  aGVs\n  bG8=\n", want: "hello"},
		{src: "!!binary '%%'", err: "f.yaml:1: k: invalid !!binary value: illegal base64 data at input byte 0"},
		{src: "12", err: "f.yaml:1: k: want a string, got an integer (12); quote it"},
		{src: "{a: 1}", err: "f.yaml:1: k: want a string, got a mapping"},
	} {
		got, err := d.Str(parse(t, c.src), "k")
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("Str(%q) error = %v, want %q", c.src, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Str(%q) = %q, %v; want %q", c.src, got, err, c.want)
		}
	}
}

func TestErrors(t *testing.T) {
	alias := "a: &x x\nb: *x\n"
	for _, c := range []struct {
		name string
		d    Decoder
		src  string
		want string
	}{
		{"alias", Decoder{File: "f.yaml"}, alias, "f.yaml:2: b: aliases are not supported (write the value out)"},
		{"alias in", Decoder{File: "f.yaml", In: "a tape"}, alias, "f.yaml:2: b: aliases are not supported in a tape (write the value out)"},
		{"non-scalar key", Decoder{File: "f.yaml"}, "? [x]\n: 1\n", "f.yaml:1: want a plain key, got a sequence (want a, b)"},
		{"unknown key", Decoder{File: "f.yaml"}, "c: 1\n", `f.yaml:1: unknown key "c" (want a, b)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			root, err := c.d.Parse([]byte(c.src))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.d.Fields(root, "", []string{"a", "b"}, func(key string, v *yaml.Node) error {
				_, err := c.d.Str(v, key)
				return err
			})
			if err == nil || err.Error() != c.want {
				t.Fatalf("error = %v, want %q", err, c.want)
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error does not wrap ErrFormat")
			}
		})
	}
}

func TestParseSecondDocument(t *testing.T) {
	d := &Decoder{File: "f.yaml"}
	for src, want := range map[string]string{
		"a: 1\n---\nb: 2\n": "f.yaml:2: more than one YAML document (remove the '---')",
		"a: 1\n---\n[b\n":   "f.yaml:3: invalid YAML: did not find expected ',' or ']'", // the [ is on line 3
	} {
		if _, err := d.Parse([]byte(src)); err == nil || err.Error() != want {
			t.Errorf("Parse(%q) error = %v, want %q", src, err, want)
		}
	}
	if n, err := d.Parse(nil); n != nil || err != nil {
		t.Errorf("Parse(empty) = %v, %v; want nil, nil", n, err)
	}
}

// TestDurationTooLarge: a duration that overflows is called too large; a
// malformed one still asks for a duration.
func TestDurationTooLarge(t *testing.T) {
	d := Decoder{File: "f.yaml"}
	for src, want := range map[string]string{
		"9999999h": `f.yaml:1: retry_after: "9999999h" is too large: a duration is at most 2562047h47m16.854775807s`,
		"soon":     `f.yaml:1: retry_after: want a duration such as 100ms or 2s, got "soon"`,
	} {
		root, err := d.Parse([]byte(src + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Duration(root, "retry_after"); err == nil || err.Error() != want {
			t.Errorf("Duration(%q) = %v, want %s", src, err, want)
		}
	}
}

// TestFieldsKeys: the keys Fields returns are those the mapping held, in
// lists of allowed keys of every length (past the 64th too), and a key
// given twice is a duplicate wherever it is in the list.
func TestFieldsKeys(t *testing.T) {
	d := &Decoder{File: "f.yaml"}
	for _, n := range []int{1, 2, 63, 64, 65, 130} {
		allowed := make([]string, n)
		for i := range allowed {
			allowed[i] = fmt.Sprintf("k%d", i)
		}
		held := map[string]bool{}
		var src strings.Builder
		for i := 0; i < n; i += 3 { // every third key, the last always
			held[allowed[i]] = true
			fmt.Fprintf(&src, "%s: x\n", allowed[i])
		}
		if !held[allowed[n-1]] {
			held[allowed[n-1]] = true
			fmt.Fprintf(&src, "%s: x\n", allowed[n-1])
		}
		keys, err := d.Fields(parse(t, src.String()), "", allowed, func(string, *yaml.Node) error { return nil })
		if err != nil {
			t.Fatalf("%d allowed: %v", n, err)
		}
		for _, k := range append(allowed, "other") {
			if keys.Has(k) != held[k] {
				t.Errorf("%d allowed: Has(%s) = %v, want %v", n, k, keys.Has(k), held[k])
			}
		}
		if keys.Len() != len(held) {
			t.Errorf("%d allowed: Len() = %d, want %d", n, keys.Len(), len(held))
		}
		last := allowed[n-1]
		_, err = d.Fields(parse(t, src.String()+last+": y\n"), "", allowed, func(string, *yaml.Node) error { return nil })
		if want := fmt.Sprintf("duplicate key %q", last); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%d allowed, %s twice: error %v, want %s", n, last, err, want)
		}
	}
	if (Keys{}).Has("a") || (Keys{}).Len() != 0 {
		t.Error("the zero Keys holds a key")
	}
}
