package harness

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/udiff"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/tools"
)

// fuzzOutcome builds an outcome holding the given texts in every field and
// every shape: model retries, user turns (plain and named), async results,
// calls with every field, a diff, the workspace with a deleted and an
// untouched file, and a state of nested maps, arrays, numbers, booleans and
// nulls keyed by the texts.
func fuzzOutcome(name, content, args, multi, result, path, repair string, flag bool, num float64) *Outcome {
	o := &Outcome{
		Name: name, Termination: agent.Reason("final_text"), Iterations: 2, Final: content,
		ModelRetries: []ModelRetryOutcome{{Turn: 1, Attempt: 2, Kind: llm.ErrorKind(repair), Backoff: time.Second, Error: multi}},
		Turns: []TurnOutcome{{
			Index:    1,
			User:     &llm.Message{Content: multi},
			Response: &llm.Response{Message: llm.Message{Content: multi}, FinishReason: llm.FinishReason(result)},
			Calls: testCalls(testCall{
				ID: name, Name: content, Arguments: args, Executed: result, Repairs: []string{repair, result},
				Coercions: []tools.Coercion{{Path: path, From: repair, To: content}},
				Retries:   []RetryOutcome{{Failure: tools.FailureKind(repair), Result: result, Backoff: 1500 * time.Millisecond}, {Result: multi}},
				Memoized:  flag, Async: !flag, Failure: tools.FailureKind(result), Result: multi,
				Effects: []tools.Effect{{File: &tools.FileEffect{Op: "write", Path: path, From: content, Bytes: 3}},
					{Process: &tools.ProcessEffect{Command: repair, ExitCode: 1, TimedOut: flag}}},
			}),
			Delivered: []AsyncOutcome{{ID: path, Name: name, Result: multi}},
			Diff:      multi,
		}, {Index: 2, User: &llm.Message{Content: content, Name: name}}},
		Workspace: []FileState{{Path: path, Content: multi}, {Path: path + "z", Untouched: true, Size: 3, Hash: "abc"}},
		Deleted:   []string{path + ".deleted"},
		State: map[string]any{
			name: map[string]any{
				path:    []any{multi, num, flag, nil, []any{content, []any{}}, map[string]any{repair: result, args: map[string]any{}}},
				content: map[string]any{multi: num * 1e20, result: []any{map[string]any{name: args}}},
			},
			"empty": map[string]any{},
			repair:  multi,
		},
	}
	if flag {
		o.Error = content
		o.Turns[0].Envelope = repair
	}
	return o
}

// checkGolden checks the golden of o by property: it is valid YAML that
// yaml.v3 reads back to goldenDoc(o), and writing it again gives the same
// bytes. It reports whether the writer refused o (a key that is not UTF-8).
func checkGolden(t *testing.T, o *Outcome) (refused bool) {
	t.Helper()
	got, err := o.writeGolden()
	if err != nil {
		if !errors.Is(err, errGoldenText) {
			t.Fatalf("writeGolden: %v", err)
		}
		return true
	}
	var doc any
	if err := yaml.Unmarshal(got, &doc); err != nil {
		t.Fatalf("the golden does not parse: %v\n%s", err, got)
	}
	if want := goldenDoc(o); !reflect.DeepEqual(numbersAsFloats(doc), want) {
		t.Fatalf("the golden reads back as\n%#v\nwant\n%#v\ngolden:\n%s", doc, want, got)
	}
	again, err := o.writeGolden()
	if err != nil || !bytes.Equal(again, got) {
		t.Fatalf("written again, the golden differs (%v) at %s", err, udiff.FirstHunk(string(got), string(again)))
	}
	return false
}

// goldenDoc is the document a golden of o reads back as (yaml.v3 into any,
// numbers as float64): the format's keys, empty fields left out.
func goldenDoc(o *Outcome) any {
	m := map[string]any{"name": o.Name, "termination": string(o.Termination), "iterations": float64(o.Iterations)}
	if o.Error != "" {
		m["error"] = o.Error
	}
	if len(o.ModelRetries) > 0 {
		var l []any
		for _, r := range o.ModelRetries {
			e := map[string]any{"turn": float64(r.Turn), "attempt": float64(r.Attempt), "backoff": r.Backoff.String(), "error": r.Error}
			if r.Kind != "" {
				e["kind"] = string(r.Kind)
			}
			l = append(l, e)
		}
		m["model_retries"] = l
	}
	turns := []any{}
	for _, tu := range o.Turns {
		turns = append(turns, turnDoc(&tu))
	}
	m["turns"] = turns
	if o.Final != "" {
		m["final"] = o.Final
	}
	ws := map[string]any{}
	var untouched []any
	for _, f := range o.Workspace {
		if f.Untouched {
			untouched = append(untouched, fmt.Sprintf("%s (%d bytes, sha256 %s)", f.Path, f.Size, f.Hash))
		} else {
			ws[f.Path] = f.Content
		}
	}
	for _, p := range o.Deleted {
		ws[p] = nil
	}
	if len(ws) > 0 {
		m["workspace"] = ws
	}
	if untouched != nil {
		m["untouched"] = untouched
	}
	if o.State != nil {
		m["state"] = numbersAsFloats(any(o.State))
	}
	return m
}

func turnDoc(tu *TurnOutcome) map[string]any {
	m := map[string]any{"turn": float64(tu.Index)}
	if u := tu.User; u != nil {
		if u.Name == "" {
			m["user"] = u.Content
		} else {
			m["user"] = map[string]any{"content": u.Content, "name": u.Name}
		}
	}
	if len(tu.Delivered) > 0 {
		var l []any
		for _, a := range tu.Delivered {
			l = append(l, map[string]any{"id": a.ID, "name": a.Name, "result": a.Result})
		}
		m["async_results"] = l
	}
	if r := tu.Response; r != nil && (r.Message.Content != "" || r.FinishReason != "") {
		rm := map[string]any{}
		if r.Message.Content != "" {
			rm["content"] = r.Message.Content
		}
		if r.FinishReason != "" {
			rm["finish_reason"] = string(r.FinishReason)
		}
		m["response"] = rm
	}
	if tu.Envelope != "" {
		m["extracted_from"] = tu.Envelope
	}
	if len(tu.Calls) > 0 {
		var l []any
		for i := range tu.Calls {
			l = append(l, callDoc(&tu.Calls[i]))
		}
		m["calls"] = l
	}
	if tu.Diff != "" {
		m["diff"] = tu.Diff
	}
	return m
}

func callDoc(c *CallOutcome) map[string]any {
	m := map[string]any{"id": c.ID(), "name": c.Name(), "arguments": c.Arguments(), "result": c.Result()}
	if c.showExecuted() {
		m["executed"] = c.Executed()
	}
	if len(c.Repairs()) > 0 {
		var l []any
		for _, r := range c.Repairs() {
			l = append(l, r)
		}
		m["repairs"] = l
	}
	if len(c.Coercions()) > 0 {
		var l []any
		for _, co := range c.Coercions() {
			l = append(l, map[string]any{"path": co.Path, "from": co.From, "to": co.To})
		}
		m["coercions"] = l
	}
	if len(c.Retries()) > 0 {
		var l []any
		for _, r := range c.Retries() {
			l = append(l, map[string]any{"failure": string(r.Failure), "backoff": r.Backoff.String(), "result": r.Result})
		}
		m["retried"] = l
	}
	if c.Memoized() {
		m["memoized"] = true
	}
	if c.Async() {
		m["async"] = true
	}
	if c.Failure() != "" {
		m["failure"] = string(c.Failure())
	}
	if len(c.Effects()) > 0 {
		var l []any
		for _, e := range c.Effects() {
			switch {
			case e.File != nil:
				f := map[string]any{"op": string(e.File.Op), "path": e.File.Path, "bytes": float64(e.File.Bytes)}
				if e.File.From != "" {
					f["from"] = e.File.From
				}
				l = append(l, map[string]any{"file": f})
			case e.Process != nil:
				p := map[string]any{"command": e.Process.Command, "exit_code": float64(e.Process.ExitCode)}
				if e.Process.Background {
					p["background"] = true
				}
				if e.Process.TimedOut {
					p["timed_out"] = true
				}
				l = append(l, map[string]any{"process": p})
			default:
				l = append(l, map[string]any{})
			}
		}
		m["effects"] = l
	}
	return m
}

// numbersAsFloats returns v with every number a float64 (yaml.v3 reads
// ints as int, or uint64 past int64), maps and slices copied.
func numbersAsFloats(v any) any {
	switch v := v.(type) {
	case int:
		return float64(v)
	case uint64:
		return float64(v)
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = numbersAsFloats(x)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, x := range v {
			l[i] = numbersAsFloats(x)
		}
		return l
	}
	return v
}

// nastyTexts are pieces of text that make yaml.v3 choose each scalar style:
// indicators, words and numbers that read back as something else, line
// breaks of every kind, spaces at the edges, control, non-BMP and invalid
// characters, a byte order mark, a key too long to be simple.
var nastyTexts = []string{"", " ", "\n", "\n\n", "\t", "\r", "\r\n", "\u0085", "\u2028", "\u2029",
	"\ufeff", "\U0001F600", "é", "\x00", "\x01", "\x1b", "\x7f", "\u00a0", "\u0080", "\ufffe", "\ue000",
	"#", " #", ": ", ":", "- ", "-", "---", "...", "?", "'", "\"", "\\", "{", "}", "[", "]", ",", "&", "*",
	"!", "|", ">", "%", "@", "`", "yes", "no", "true", "False", "null", "~", "<<", "1", "-2", "0x1F", "1e3",
	"1_000", ".5", ".inf", "2001-12-14", "2001-12-14 21:59:43.10", "+1", "0o17", "0b101", "12:30", "a", "abc",
	"x y", strings.Repeat("k", 130), "\xff", "\xc3"}

// nastyText joins up to eight nastyTexts.
func nastyText(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(9) {
		b.WriteString(nastyTexts[r.IntN(len(nastyTexts))])
	}
	return b.String()
}

// TestGoldenRandom checks checkGolden on outcomes of random nasty texts (a
// fixed seed), and that the writer refuses only keys that are not UTF-8.
func TestGoldenRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	n, refused := 3000, 0
	if testing.Short() {
		n = 300
	}
	nums := []float64{0, 1, -1.5, 1e20, 1e21, 2.5e-7, 123456789, 0.1}
	for range n {
		o := fuzzOutcome(nastyText(r), nastyText(r), nastyText(r), nastyText(r), nastyText(r), nastyText(r),
			nastyText(r), r.IntN(2) == 0, nums[r.IntN(len(nums))])
		if checkGolden(t, o) {
			refused++
		}
	}
	t.Logf("the writer refused %d of %d random outcomes (keys that are not UTF-8)", refused, n)
	if refused == 0 || refused == n {
		t.Errorf("refused %d of %d: want some (the keys that are not UTF-8), not all", refused, n)
	}
}

// TestGoldenRefusesKeysThatAreNotUTF8: a key must be text, so a workspace
// path or state key that is not UTF-8 is an error naming it.
func TestGoldenRefusesKeysThatAreNotUTF8(t *testing.T) {
	for name, o := range map[string]*Outcome{
		"workspace path": {Name: "n", Workspace: []FileState{{Path: "bad\xff", Content: "x"}}},
		"state key":      {Name: "n", State: map[string]any{"w": map[string]any{"bad\xff": 1.0}}},
	} {
		if _, err := o.Golden(redact.Default()); !errors.Is(err, errGoldenText) || !strings.Contains(err.Error(), `"bad\xff"`) {
			t.Errorf("%s: Golden gives error %v, want errGoldenText naming the key", name, err)
		}
	}
}

// FuzzGolden: for outcomes of any texts, the golden holds the outcome (see
// checkGolden).
func FuzzGolden(f *testing.F) {
	f.Add("name", "hello world", `{"a": 1}`, "line 1\nline 2\n", "42", "a.txt", "x: y", true, 1.5)
	f.Add("", "it's", "", " lead", "true", ".env", "- item", false, 1e20)
	f.Add("n", "a #b", "{}", "x \ny\n", "1.5s", "dir/b c.txt", "[a, b]", true, -0.0)
	f.Add("\xff", "\u2028", "\ufeffx", "\n\nkept\n\n", "\U0001F600", "a\nb", "yes", false, 2.5e-7)
	f.Fuzz(func(t *testing.T, name, content, args, multi, result, path, repair string, flag bool, num float64) {
		if math.IsNaN(num) || math.IsInf(num, 0) {
			num = 0 // no JSON value
		}
		checkGolden(t, fuzzOutcome(name, content, args, multi, result, path, repair, flag, num))
	})
}

// TestGoldenStateNumbersReadBack: a state's whole numbers beyond int64 are
// written so that yaml.v3 reads the golden back (not "!!int 1e20's digits",
// which it refuses to decode), with their values.
func TestGoldenStateNumbersReadBack(t *testing.T) {
	o := &Outcome{Name: "n", State: map[string]any{"w": []any{1.5e20, 1e19, -9.3e18, 42.0, -0.0, 1e21}}}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		State struct{ W []float64 }
	}
	if err := yaml.Unmarshal(golden, &back); err != nil {
		t.Fatalf("the golden does not read back: %v\n%s", err, golden)
	}
	if want := []float64{1.5e20, 1e19, -9.3e18, 42, 0, 1e21}; !reflect.DeepEqual(back.State.W, want) {
		t.Errorf("the state reads back as %v, want %v\n%s", back.State.W, want, golden)
	}
}

// TestGoldenStateWholeNumbersArePlain: a state's whole number that fits
// 64 bits, negative or above int64, is written plain (-5, not
// "!!float -5", so that a golden written before compares equal); only one
// beyond 64 bits is tagged.
func TestGoldenStateWholeNumbersArePlain(t *testing.T) {
	o := &Outcome{Name: "n", Termination: "final_text", State: map[string]any{"w": map[string]any{
		"debt": -5.0, "stock": 7.0, "half": 0.5, "unsigned": 1e19, "big": 1e20, "low": -9.3e18,
	}}}
	golden, err := o.Golden(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "state:\n  w:\n" +
		"    big: !!float 100000000000000000000\n" +
		"    debt: -5\n" +
		"    half: 0.5\n" +
		"    low: !!float -9300000000000000000\n" +
		"    stock: 7\n" +
		"    unsigned: 10000000000000000000\n"
	if !strings.HasSuffix(string(golden), want) {
		t.Errorf("the golden's state is not\n%s\n%s", want, golden)
	}
}

// TestJSONFloat: jsonFloat writes what canonicalJSON (encoding/json) writes,
// at the edges of the exponent form and for random bit patterns.
func TestJSONFloat(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1.5, 1e-6, 9.99e-7, 1e-7, 2.5e-7, 1e20, 1e21, 9.999e20,
		-1e21, 1.5e300, 5e-324, math.MaxFloat64, 123456789, 1e15, 1e16, 0.000001234}
	r := rand.New(rand.NewPCG(1, 6))
	for range 20000 {
		if f := math.Float64frombits(r.Uint64()); !math.IsNaN(f) && !math.IsInf(f, 0) {
			vals = append(vals, f)
		}
	}
	for _, v := range vals {
		if got, want := jsonFloat(v), jsonvalue.Canonical(v); got != want {
			t.Errorf("jsonFloat(%v) = %s, want %s", v, got, want)
		}
	}
}

// TestOnlyFlowPlain: a text is flow-plain when every character of it is
// one of flowPlain, checked byte by byte: each byte alone, in the middle
// of plain text, and multi-byte characters, none of which is.
func TestOnlyFlowPlain(t *testing.T) {
	for c := range 256 {
		want := strings.IndexByte(flowPlain, byte(c)) >= 0
		for _, s := range []string{string([]byte{byte(c)}), "ab" + string([]byte{byte(c)}) + "cd"} {
			if got := onlyFlowPlain(s); got != want {
				t.Errorf("onlyFlowPlain(%q) = %v, want %v", s, got, want)
			}
		}
	}
	for _, s := range []string{"é", "a✓b", "log\u00a0txt"} {
		if onlyFlowPlain(s) {
			t.Errorf("onlyFlowPlain(%q) = true, want false", s)
		}
	}
	if !onlyFlowPlain("") || !onlyFlowPlain("sub/dir/a-b_c.txt") {
		t.Error("plain paths are not flow-plain")
	}
}

// TestPadAndLiteralLines: pad appends exactly n spaces, past the length of
// what it appends from too, and a literal block writes each line of its
// text, empty ones without indentation.
func TestPadAndLiteralLines(t *testing.T) {
	for _, n := range []int{0, 1, 31, 32, 33, 64, 70} {
		w := &goldenWriter{}
		w.pad(n)
		if string(w.buf) != strings.Repeat(" ", n) {
			t.Errorf("pad(%d) wrote %q", n, w.buf)
		}
	}
	for text, want := range map[string]string{
		"a\nb":       "|-\n    a\n    b\n",
		"a\n\nb\n":   "|\n    a\n\n    b\n",
		"a\nb\n\n":   "|+\n    a\n    b\n\n",
		"\n  x\ny\n": "|2\n\n      x\n    y\n",
	} {
		w := &goldenWriter{}
		w.literal(text, 4)
		if string(w.buf) != want {
			t.Errorf("literal(%q) wrote %q, want %q", text, w.buf, want)
		}
	}
}

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
