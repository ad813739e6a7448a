package main

import (
	"strings"
	"testing"
)

func TestApplyNests(t *testing.T) {
	src := []byte("a; f(x, y); b")
	//             0123456789012
	edits := []edit{
		{start: 3, end: 10, id: 1, pre: "[1:", post: "]"}, // the statement
		{start: 5, end: 9, id: 2, pre: "<2:", post: ">"},  // inside it
		{start: 3, end: 10, id: 3, pre: "(3:", post: ")"}, // the same span, made later: around 1
		{start: 13, end: 13, id: 0, pre: "!", post: ""},   // an insertion at the end
		{start: 3, end: 3, id: 4, pre: "^", post: ""},     // an insertion where 1 starts: before it
	}
	got, spans := apply(src, edits)
	want := "a; ^(3:[1:f(<2:x, y>)]); b!"
	if got != want {
		t.Fatalf("apply = %q, want %q", got, want)
	}
	for _, s := range spans {
		text := got[s.start:s.end]
		switch s.id {
		case 1:
			if text != "[1:f(<2:x, y>)]" {
				t.Errorf("span 1 = %q", text)
			}
		case 2:
			if text != "<2:x, y>" {
				t.Errorf("span 2 = %q", text)
			}
		case 3:
			if !strings.HasPrefix(text, "(3:") || !strings.HasSuffix(text, ")") {
				t.Errorf("span 3 = %q", text)
			}
		case 4:
			if text != "^" {
				t.Errorf("span 4 = %q", text)
			}
		}
	}
	if len(spans) != 4 {
		t.Errorf("%d spans, want 4 (the insertion with no mutant has none)", len(spans))
	}
	if id := innermost(spans, strings.Index(got, "x")); id != 2 {
		t.Errorf("innermost at x = %d, want 2", id)
	}
}

func TestSampleIsStable(t *testing.T) {
	var ms []*Mutant
	for i := range 50 {
		ms = append(ms, &Mutant{ID: i + 1, File: "a.go", Key: strings.Repeat("k", i%7) + string(rune('a'+i%26))})
	}
	a, b := sample(ms, 10, "s"), sample(ms, 10, "s")
	if len(a) != 10 {
		t.Fatalf("sample of 10 has %d", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatal("the same seed chose different mutants")
		}
		if i > 0 && a[i].ID < a[i-1].ID {
			t.Fatal("the sample is not in the mutants' order")
		}
	}
	if c := sample(ms, 10, "other"); c[0] == a[0] && c[1] == a[1] && c[2] == a[2] {
		t.Error("another seed chose the same first mutants")
	}
	if all := sample(ms, 0, "s"); len(all) != 50 {
		t.Error("a sample of 0 is not all")
	}
}
