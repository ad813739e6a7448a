package report

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// The environment variables a Kubernetes Indexed Job (or any runner) can set
// instead of --shard: JobIndexVar is set by Kubernetes itself (0-based);
// ShardTotalVar says how many shards there are (the Job's completions).
const (
	JobIndexVar   = "JOB_COMPLETION_INDEX"
	ShardTotalVar = "EVALRUN_SHARD_TOTAL"
)

// ErrShard is wrapped by every error about a shard specification.
var ErrShard = errors.New("invalid shard")

// Shard is one part of a suite split n ways: the scenarios whose name hashes
// to Index (1-based) of Total. A nil *Shard is the whole suite.
type Shard struct {
	Index int `json:"index"`
	Total int `json:"total"`
}

// ParseShard parses "i/n" with 1 <= i <= n.
func ParseShard(s string) (*Shard, error) {
	is, ns, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("%w %q: want i/n, e.g. 2/3", ErrShard, s)
	}
	if n < 1 || i < 1 || i > n {
		return nil, fmt.Errorf("%w %q: want 1 <= i <= n", ErrShard, s)
	}
	return &Shard{Index: i, Total: n}, nil
}

// ShardFromEnv returns the shard that JobIndexVar (0-based) and ShardTotalVar
// describe, read through getenv (os.Getenv in the command). It returns nil
// and no error when JobIndexVar is unset, and an error when only one of the
// two is set or either is not a number in range.
func ShardFromEnv(getenv func(string) string) (*Shard, error) {
	idx, total := getenv(JobIndexVar), getenv(ShardTotalVar)
	if idx == "" {
		if total != "" {
			return nil, fmt.Errorf("%w: %s=%s is set but %s is not", ErrShard, ShardTotalVar, total, JobIndexVar)
		}
		return nil, nil
	}
	if total == "" {
		return nil, fmt.Errorf("%w: %s=%s is set but %s (how many shards) is not", ErrShard, JobIndexVar, idx, ShardTotalVar)
	}
	i, err1 := strconv.Atoi(idx)
	n, err2 := strconv.Atoi(total)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return nil, fmt.Errorf("%w: %s=%s, %s=%s: want 0 <= index < total", ErrShard, JobIndexVar, idx, ShardTotalVar, total)
	}
	return &Shard{Index: i + 1, Total: n}, nil
}

// Contains reports whether the scenario with this name belongs to the shard:
// a stable function of the name alone (FNV-1a), so the partition does not
// depend on file order and every trial of a scenario lands in one shard. A
// nil shard contains every scenario.
func (s *Shard) Contains(name string) bool {
	if s == nil {
		return true
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return int(h.Sum64()%uint64(s.Total)) == s.Index-1
}

// String returns "i/n".
func (s *Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Total) }
