package report

import (
	"fmt"
	"testing"
)

func TestShardPartition(t *testing.T) {
	const n = 3
	counts := make([]int, n)
	for i := range 300 {
		name := fmt.Sprintf("group/scenario-%d", i)
		in := 0
		for k := 1; k <= n; k++ {
			if (&Shard{Index: k, Total: n}).Contains(name) {
				in++
				counts[k-1]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards of %d", name, in, n)
		}
	}
	for k, c := range counts {
		if c < 70 {
			t.Errorf("shard %d/%d holds %d of 300 scenarios: the hash does not spread them", k+1, n, c)
		}
	}
	var whole *Shard
	if !whole.Contains("anything") {
		t.Error("a nil shard must contain every scenario")
	}
}

func TestParseShard(t *testing.T) {
	if s, err := ParseShard("2/3"); err != nil || *s != (Shard{Index: 2, Total: 3}) {
		t.Errorf("2/3: %v %v", s, err)
	}
	for in, want := range map[string]string{
		"0/3": `invalid shard "0/3": want 1 <= i <= n`,
		"4/3": `invalid shard "4/3": want 1 <= i <= n`,
		"2":   `invalid shard "2": want i/n, e.g. 2/3`,
		"a/b": `invalid shard "a/b": want i/n, e.g. 2/3`,
	} {
		if _, err := ParseShard(in); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", in, err, want)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	s, err := ShardFromEnv(env(map[string]string{JobIndexVar: "0", ShardTotalVar: "3"}))
	if err != nil || *s != (Shard{Index: 1, Total: 3}) {
		t.Errorf("index 0 of 3: %v %v, want shard 1/3", s, err)
	}
	if s, err := ShardFromEnv(env(nil)); s != nil || err != nil {
		t.Errorf("no variables: %v %v, want no shard", s, err)
	}
	for _, c := range []struct {
		kv   map[string]string
		want string
	}{
		{map[string]string{JobIndexVar: "1"}, "invalid shard: JOB_COMPLETION_INDEX=1 is set but EVALRUN_SHARD_TOTAL (how many shards) is not"},
		{map[string]string{ShardTotalVar: "3"}, "invalid shard: EVALRUN_SHARD_TOTAL=3 is set but JOB_COMPLETION_INDEX is not"},
		{map[string]string{JobIndexVar: "3", ShardTotalVar: "3"}, "invalid shard: JOB_COMPLETION_INDEX=3, EVALRUN_SHARD_TOTAL=3: want 0 <= index < total"},
	} {
		if _, err := ShardFromEnv(env(c.kv)); err == nil || err.Error() != c.want {
			t.Errorf("%v: got %v, want %s", c.kv, err, c.want)
		}
	}
}

// TestShardBounds: the shards at the ends of the range are valid: 1/1, 1/n
// and n/n; from the environment, index 0 of 1.
func TestShardBounds(t *testing.T) {
	for in, want := range map[string]Shard{"1/1": {1, 1}, "1/4": {1, 4}, "4/4": {4, 4}} {
		if s, err := ParseShard(in); err != nil || *s != want {
			t.Errorf("%s: %v %v, want %v", in, s, err, want)
		}
	}
	env := map[string]string{JobIndexVar: "0", ShardTotalVar: "1"}
	if s, err := ShardFromEnv(func(k string) string { return env[k] }); err != nil || *s != (Shard{1, 1}) {
		t.Errorf("index 0 of 1: %v %v, want shard 1/1", s, err)
	}
}
