package evalrun

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/report"
)

// TestRecordShard records each shard of six scenarios with a model that
// answers every request, and checks that each scenario is recorded by
// exactly the shard its name hashes to.
func TestRecordShard(t *testing.T) {
	files := map[string]string{}
	for i := range 6 {
		files[fmt.Sprintf("files/append-%d.yaml", i)] = unrecorded
	}
	recorded := regexp.MustCompile(`(?m)^recorded\s+(\S+)`)
	var all []string
	for k := 1; k <= 3; k++ {
		dir := newScenarios(t, files)
		f := &fakeLive{answer: func(_ context.Context, _ int, req *llm.Request) (*llm.Response, error) {
			if last, _ := req.LastMessage(); last.Role == llm.RoleTool {
				return textResponse("Done."), nil
			}
			return callResponse("call_1", "write_file", `{"path": "notes.txt", "content": "hello\nworld\n"}`), nil
		}}
		code, out, errOut := runRecordCmd(t, context.Background(), f, "--model", "fake/m", "--no-golden", "--shard", fmt.Sprintf("%d/3", k), dir)
		if code != exitOK {
			t.Fatalf("record --shard %d/3: exit %d\n%s%s", k, code, out, errOut)
		}
		sh := &report.Shard{Index: k, Total: 3}
		var got []string
		for _, m := range recorded.FindAllStringSubmatch(out, -1) {
			if !sh.Contains(m[1]) {
				t.Errorf("shard %s recorded %s, which hashes to another shard", sh, m[1])
			}
			got = append(got, m[1])
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	want := []string{"files/append-0", "files/append-1", "files/append-2", "files/append-3", "files/append-4", "files/append-5"}
	if !slices.Equal(all, want) {
		t.Errorf("the three shards recorded %v, want each scenario once: %v", all, want)
	}
}
