package harness

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/replay"
)

// TestGoldenOfLongTexts: a golden holds long texts whole wherever they
// stand: a final text with no turns, the path of an untouched or of a
// changed file, a file's content.
func TestGoldenOfLongTexts(t *testing.T) {
	long := strings.Repeat("x", 2000)
	for _, o := range []*Outcome{
		{Name: "final", Termination: "final_text", Final: long},
		{Name: "untouched path", Termination: "final_text", Workspace: []FileState{{Path: long, Untouched: true, Size: 1, Hash: "0123456789abcdef"}}},
		{Name: "path", Termination: "final_text", Workspace: []FileState{{Path: long, Content: "x"}}},
		{Name: "content", Termination: "final_text", Workspace: []FileState{{Path: "a.txt", Content: long}}},
	} {
		checkGolden(t, o)
	}
}

// TestGoldenKeyOf1000BytesIsPlain: a key of up to 1000 bytes is written
// as a plain key (YAML's limit for one is 1024 characters); a longer one
// as an explicit "? key".
func TestGoldenKeyOf1000BytesIsPlain(t *testing.T) {
	for _, n := range []int{1000, 1001} {
		path := strings.Repeat("p", n)
		o := &Outcome{Name: "keys", Termination: "final_text", Workspace: []FileState{{Path: path, Content: "x"}}}
		checkGolden(t, o)
		got, _ := o.writeGolden()
		plain := strings.Contains(string(got), "\n  "+path+": x\n")
		explicit := strings.Contains(string(got), "\n  ? \""+path+"\"\n  : x\n")
		if plain != (n <= 1000) || explicit != (n > 1000) {
			t.Errorf("a %d-byte key: plain %v, explicit %v\n%s", n, plain, explicit, got)
		}
	}
}

// TestGoldenQuotesTheStartOfADate: text of four digits and "-" is quoted,
// as a date would be; other text starting with a digit is plain.
func TestGoldenQuotesTheStartOfADate(t *testing.T) {
	for s, want := range map[string]string{
		"2024-":      "'2024-'",
		"2024-01-01": "'2024-01-01'",
		"2024-x":     "'2024-x'",
		"1234x":      "1234x",
		"202-4":      "202-4",
	} {
		w := &goldenWriter{}
		w.text(s, false, 2)
		if string(w.buf) != want {
			t.Errorf("%q is written %s, want %s", s, w.buf, want)
		}
	}
}

// TestWithUserTurnsRedactsAndKeepsFailedCalls: a live run's tape has each
// user turn before its model call, redacted when a Redactor is given and
// as spoken when not; a last user turn whose model call failed keeps the
// failed attempts after it.
func TestWithUserTurnsRedactsAndKeepsFailedCalls(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	first := llm.UserMessage("my key is " + key)
	last := llm.UserMessage("and now?")
	o := &Outcome{Turns: []TurnOutcome{
		{Index: 1, User: &first, Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Index: 2, User: &last},
	}}
	recorded := []replay.Entry{
		{Response: &llm.Response{Message: llm.AssistantMessage("ok")}},
		{Error: "503 unavailable"},
	}
	for _, red := range []*replay.Redactor{nil, replay.NewRedactor(nil)} {
		got := o.WithUserTurns(recorded, red)
		if len(got) != 4 || got[0].User == nil || got[1].Response == nil || got[2].User == nil || got[2].User.Content != "and now?" || got[3].Error != "503 unavailable" {
			t.Fatalf("redactor %v: entries %+v; want user, response, user, error", red != nil, got)
		}
		if redacted := !strings.Contains(got[0].User.Content, key); redacted != (red != nil) {
			t.Errorf("redactor %v: the first user turn is %q", red != nil, got[0].User.Content)
		}
	}
	if first.Content != "my key is "+key {
		t.Errorf("the outcome's user turn was changed: %q", first.Content)
	}
}

// TestRedactGoldenByChunksIsRedactingTheWhole: a golden of several chunks
// is redacted as the whole text would be, wherever its keys stand: in the
// first chunk only, in a later one only, at the very end of a line longer
// than a chunk, or nowhere.
func TestRedactGoldenByChunksIsRedactingTheWhole(t *testing.T) {
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	line := "  - a line of the golden that holds nothing secret\n"
	lines := func(n int) string { return strings.Repeat(line, n) }
	perChunk := goldenChunk / len(line)
	// In this order: a chunking that loses or moves bytes fails on a
	// case before the long line, where it could loop.
	cases := []struct{ name, golden string }{
		{"key in the first chunk", "k: " + key + "\n" + lines(3*perChunk)},
		{"key in the third chunk", lines(2*perChunk+10) + "k: " + key + "\n" + lines(10)},
		{"keys in every chunk", strings.Repeat(lines(perChunk-1)+"k: "+key+"\n", 3)},
		{"key ends a long line", lines(3) + strings.Repeat("x", goldenChunk+100) + " " + key + "\n" + lines(perChunk)},
		{"no key", lines(3 * perChunk)},
	}
	r := replay.NewRedactor(nil)
	for _, c := range cases {
		got := string(redactGolden([]byte(c.golden), r))
		want := r.Quiet(c.golden)
		if got != want {
			t.Fatalf("%s: the chunked redaction differs from the whole one at %s", c.name, FirstDifference(want, got))
		}
		if strings.Contains(want, key) || strings.Contains(c.golden, key) != strings.Contains(want, replay.Redacted) {
			t.Errorf("%s: the whole text is not redacted as expected", c.name)
		}
	}
}
