package harness

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/examples/orders"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
)

// TestDirectGoldenMatchesNodes runs every bundled scenario (scenarios/** and
// examples/**) and checks that the direct golden writer writes exactly what
// the node path writes, and that it writes every one itself.
func TestDirectGoldenMatchesNodes(t *testing.T) {
	ctx := context.Background()
	direct, total := 0, 0
	for _, root := range []string{"../scenarios", "../examples"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden.yaml") {
				return err
			}
			file := strings.TrimSuffix(path, ".golden.yaml") + ".yaml"
			s, err := scenario.Load(file, root)
			if err != nil {
				t.Errorf("%s: %v", file, err)
				return nil
			}
			if s.Setup.Agent != nil {
				// A bridged scenario's goldens come from its own agent
				// (package bridge); its tests check them.
				return nil
			}
			o, err := Run(ctx, s, &RunOptions{Tools: orders.Tools()})
			if err != nil {
				t.Errorf("%s: %v", file, err)
				return nil
			}
			want, err := yamlx.Marshal(o.Node())
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			total++
			got, ok := o.directGolden()
			if !ok {
				return nil
			}
			direct++
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the direct golden differs from the node path at %s", file, FirstDifference(string(want), string(got)))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d of %d bundled goldens written directly", direct, total)
	if total < 50 || direct != total {
		t.Errorf("the direct writer wrote %d of %d bundled goldens; want all of at least 50", direct, total)
	}
}

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
			Calls: []CallOutcome{{
				ID: name, Name: content, Arguments: args, Executed: result, Repairs: []string{repair, result},
				Coercions: []tools.Coercion{{Path: path, From: repair, To: content}},
				Retries:   []RetryOutcome{{Failure: tools.FailureKind(repair), Result: result, Backoff: 1500 * time.Millisecond}, {Result: multi}},
				Memoized:  flag, Async: !flag, Failure: tools.FailureKind(result), Result: multi,
				Effects: []tools.Effect{{File: &tools.FileEffect{Op: "write", Path: path, From: content, Bytes: 3}},
					{Process: &tools.ProcessEffect{Command: repair, ExitCode: 1, TimedOut: flag}}},
			}},
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

// checkDirectGolden checks the direct golden of o against the node path:
// written exactly when the node path writes (refused only where Marshal
// fails), the same bytes, parsing back (yaml.v3) to the same document. It
// reports whether the direct writer refused o.
func checkDirectGolden(t *testing.T, o *Outcome) (refused bool) {
	t.Helper()
	want, err := yamlx.Marshal(o.Node())
	got, ok := o.directGolden()
	if err != nil {
		if ok {
			t.Fatalf("the node path fails (%v), the direct writer wrote:\n%s", err, got)
		}
		return true
	}
	if !ok {
		t.Fatalf("the direct writer refused what the node path writes:\n%s", want)
	}
	var gotDoc, wantDoc any
	if err := yaml.Unmarshal(got, &gotDoc); err != nil {
		t.Fatalf("the direct golden does not parse: %v\n%s", err, got)
	}
	if err := yaml.Unmarshal(want, &wantDoc); err != nil {
		t.Fatalf("the node golden does not parse: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(gotDoc, wantDoc) {
		t.Fatalf("the documents differ:\ndirect:\n%s\nnodes:\n%s", got, want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the bytes differ at %s", FirstDifference(string(want), string(got)))
	}
	return false
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

// TestDirectGoldenRandom checks checkDirectGolden on outcomes of random
// nasty texts (a fixed seed), and that the direct writer refuses only what
// the node path cannot write (a key that is not UTF-8).
func TestDirectGoldenRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 17))
	n, refused := 3000, 0
	if testing.Short() {
		n = 300
	}
	nums := []float64{0, 1, -1.5, 1e20, 1e21, 2.5e-7, 123456789, 0.1}
	for range n {
		o := fuzzOutcome(nastyText(r), nastyText(r), nastyText(r), nastyText(r), nastyText(r), nastyText(r),
			nastyText(r), r.IntN(2) == 0, nums[r.IntN(len(nums))])
		if checkDirectGolden(t, o) {
			refused++
		}
	}
	t.Logf("the direct writer refused %d of %d random outcomes (keys that are not UTF-8)", refused, n)
	if refused == 0 || refused == n {
		t.Errorf("refused %d of %d: want some (the keys that are not UTF-8), not all", refused, n)
	}
}

// TestDirectGoldenRefusesOnlyErrors: the one shape the direct writer leaves
// to the node path is a key that is not UTF-8, for which Golden returns the
// node path's error.
func TestDirectGoldenRefusesOnlyErrors(t *testing.T) {
	for name, o := range map[string]*Outcome{
		"workspace path": {Name: "n", Workspace: []FileState{{Path: "bad\xff", Content: "x"}}},
		"state key":      {Name: "n", State: map[string]any{"w": map[string]any{"bad\xff": 1.0}}},
	} {
		if _, ok := o.directGolden(); ok {
			t.Errorf("%s: the direct writer wrote a key that is not UTF-8", name)
		}
		if _, err := o.Golden(); err == nil || !strings.Contains(err.Error(), "invalid UTF-8") {
			t.Errorf("%s: Golden gives error %v, want the node path's invalid UTF-8 error", name, err)
		}
	}
}

// FuzzDirectGolden: for outcomes of any texts, the direct writer writes
// exactly what the node path writes (see checkDirectGolden).
func FuzzDirectGolden(f *testing.F) {
	f.Add("name", "hello world", `{"a": 1}`, "line 1\nline 2\n", "42", "a.txt", "x: y", true, 1.5)
	f.Add("", "it's", "", " lead", "true", ".env", "- item", false, 1e20)
	f.Add("n", "a #b", "{}", "x \ny\n", "1.5s", "dir/b c.txt", "[a, b]", true, -0.0)
	f.Add("\xff", "\u2028", "\ufeffx", "\n\nkept\n\n", "\U0001F600", "a\nb", "yes", false, 2.5e-7)
	f.Fuzz(func(t *testing.T, name, content, args, multi, result, path, repair string, flag bool, num float64) {
		if math.IsNaN(num) || math.IsInf(num, 0) {
			num = 0 // no JSON value
		}
		checkDirectGolden(t, fuzzOutcome(name, content, args, multi, result, path, repair, flag, num))
	})
}

// TestGoldenStateNumbersReadBack: a state's whole numbers beyond int64 are
// written so that yaml.v3 reads the golden back (not "!!int 1e20's digits",
// which it refuses to decode), with their values.
func TestGoldenStateNumbersReadBack(t *testing.T) {
	o := &Outcome{Name: "n", State: map[string]any{"w": []any{1.5e20, 1e19, -9.3e18, 42.0, -0.0, 1e21}}}
	golden, err := o.Golden()
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
