package report

import (
	"fmt"
	"reflect"
	"testing"
)

// shardsOf splits a replay result into n shard results.
func shardsOf(r *Replay, n int) []*Replay {
	var out []*Replay
	for i := 1; i <= n; i++ {
		sh := &Shard{Index: i, Total: n}
		var part []ScenarioResult
		for _, s := range r.Scenarios {
			if sh.Contains(s.Name) {
				part = append(part, s)
			}
		}
		out = append(out, NewReplay(part, sh))
	}
	return out
}

func syntheticReplay(n int) *Replay {
	var all []ScenarioResult
	for i := range n {
		s := ScenarioResult{Name: fmt.Sprintf("g%d/s%02d", i%4, i), Status: StatusPass, Seconds: float64(i) / 100,
			Transcript: &Transcript{Tokens: llmUsage(i, 2*i)}}
		s.Path = "scenarios/" + s.Name + ".yaml"
		switch i % 5 {
		case 1:
			s.Status, s.Failures = StatusFail, []string{"x"}
		case 3:
			s.Status, s.Error = StatusError, "broken"
		}
		all = append(all, s)
	}
	return NewReplay(all, nil)
}

func TestMergeShardsEqualsWhole(t *testing.T) {
	whole := syntheticReplay(40)
	parts := shardsOf(whole, 3)
	for _, p := range parts {
		if len(p.Scenarios) == 0 {
			t.Fatalf("shard %s is empty: the test would prove little", p.Shard)
		}
	}
	// Any order of the shards gives the same result.
	merged, err := MergeReplay([]string{"c.json", "a.json", "b.json"}, []*Replay{parts[2], parts[0], parts[1]})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(merged, whole) {
		t.Errorf("merged summary %+v\nwhole summary %+v", merged.Summary, whole.Summary)
	}
	if want := (ReplaySummary{Scenarios: 40, Passed: 24, Failed: 16, Errors: 8}); merged.Summary.Scenarios != want.Scenarios ||
		merged.Summary.Passed != want.Passed || merged.Summary.Failed != want.Failed || merged.Summary.Errors != want.Errors {
		t.Errorf("summary %+v, want counts %+v", merged.Summary, want)
	}
}

func TestMergeRefuses(t *testing.T) {
	parts := shardsOf(syntheticReplay(40), 3)
	other := shardsOf(syntheticReplay(40), 2)
	stray := NewReplay(append(parts[0].Scenarios[:1:1], parts[1].Scenarios...), parts[1].Shard)
	// The same stray scenario, gone from shard 1: it is in one shard only,
	// but not the one its name belongs to.
	rest := NewReplay(parts[0].Scenarios[1:], parts[0].Shard)
	for _, c := range []struct {
		name  string
		names []string
		in    []*Replay
		want  string
	}{
		{"missing", []string{"a", "b"}, []*Replay{parts[0], parts[2]}, "cannot merge: missing shard 2/3 of 3"},
		{"twice", []string{"a", "b", "c", "d"}, []*Replay{parts[0], parts[1], parts[2], parts[1]}, "cannot merge: shard 2/3 is given twice: b and d (overlapping shards)"},
		{"totals", []string{"a", "b"}, []*Replay{parts[0], other[1]}, "cannot merge: b is shard 2/2 but a is shard 1/3: the totals differ"},
		{"unsharded", []string{"a", "b"}, []*Replay{parts[0], syntheticReplay(3)}, "cannot merge: b is not a shard (run with --shard i/n); only shard results can be merged"},
		{"overlap", []string{"a", "b", "c"}, []*Replay{parts[0], stray, parts[2]}, fmt.Sprintf("cannot merge: scenario %q is in both a and b (overlapping shards)", parts[0].Scenarios[0].Name)},
		{"foreign", []string{"a", "b", "c"}, []*Replay{rest, stray, parts[2]}, fmt.Sprintf("cannot merge: b: scenario %q does not belong to shard 2/3 (sharded by another version or by hand?)", parts[0].Scenarios[0].Name)},
		{"none", nil, nil, "cannot merge: no results given"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := MergeReplay(c.names, c.in)
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestMergeMissingLastShard: the last shard of the total is required too.
func TestMergeMissingLastShard(t *testing.T) {
	parts := shardsOf(syntheticReplay(40), 3)
	_, err := MergeReplay([]string{"a", "b"}, parts[:2])
	if want := "cannot merge: missing shard 3/3 of 3"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// TestMergeSingleUnshardedResult: one result without a shard is returned
// re-summarised, not refused as "not a shard".
func TestMergeSingleUnshardedResult(t *testing.T) {
	r := syntheticReplay(5)
	merged, err := MergeReplay([]string{"a"}, []*Replay{r})
	if err != nil || merged.Shard != nil || len(merged.Scenarios) != 5 || merged.Summary != r.Summary {
		t.Fatalf("merged %+v, %v; want the result itself", merged, err)
	}
}
