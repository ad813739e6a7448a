package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/examples/orders"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
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
			scenario := strings.TrimSuffix(path, ".golden.yaml") + ".yaml"
			s, err := Load(scenario, root)
			if err != nil {
				t.Errorf("%s: %v", scenario, err)
				return nil
			}
			o, err := s.Run(ctx, &RunOptions{Tools: orders.Tools()})
			if err != nil {
				t.Errorf("%s: %v", scenario, err)
				return nil
			}
			want, err := yamlx.Marshal(o.Node())
			if err != nil {
				t.Fatalf("%s: %v", scenario, err)
			}
			total++
			got, ok := o.directGolden()
			if !ok {
				return nil
			}
			direct++
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the direct golden differs from the node path at %s", scenario, FirstDifference(string(want), string(got)))
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

// FuzzDirectGolden: whenever the direct writer writes an outcome, the bytes
// are the node path's, and they parse back (yaml.v3) to the same document.
func FuzzDirectGolden(f *testing.F) {
	f.Add("name", "hello world", `{"a": 1}`, "line 1\nline 2\n", "42", "a.txt", "x: y", true)
	f.Add("", "it's", "", " lead", "true", ".env", "- item", false)
	f.Add("n", "a #b", "{}", "x \ny\n", "1.5s", "dir/b c.txt", "[a, b]", true)
	f.Fuzz(func(t *testing.T, name, content, args, multi, result, path, repair string, flag bool) {
		o := &Outcome{
			Name: name, Termination: agent.Reason("final_text"), Iterations: 2, Final: content,
			Turns: []TurnOutcome{{
				Index:    1,
				Response: &llm.Response{Message: llm.Message{Content: multi}, FinishReason: llm.FinishReason(result)},
				Calls: []CallOutcome{{
					ID: name, Name: content, Arguments: args, Executed: result, Repairs: []string{repair, result},
					Coercions: []tools.Coercion{{Path: path, From: repair, To: content}},
					Retries:   []RetryOutcome{{Failure: tools.FailureKind(repair), Result: result, Backoff: 1500 * time.Millisecond}},
					Memoized:  flag, Async: !flag, Failure: tools.FailureKind(result), Result: multi,
					Effects: []tools.Effect{{File: &tools.FileEffect{Op: "write", Path: path, From: content, Bytes: 3}},
						{Process: &tools.ProcessEffect{Command: repair, ExitCode: 1, TimedOut: flag}}},
				}},
				Delivered: []AsyncOutcome{{ID: path, Name: name, Result: multi}},
				Diff:      multi,
			}, {Index: 2}},
			Workspace: []FileState{{Path: path, Content: multi}, {Path: path + "z", Untouched: true, Size: 3, Hash: "abc"}},
			Deleted:   []string{content},
		}
		if flag {
			o.Error = content
			o.Turns[0].Envelope = repair
		}
		got, ok := o.directGolden()
		if !ok {
			return
		}
		want, err := yamlx.Marshal(o.Node())
		if err != nil {
			t.Skip(err)
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
	})
}
