package report

import (
	"errors"
	"fmt"
	"strings"
)

// ErrMerge is wrapped by every error of a merge that would not give the
// whole suite exactly once: a missing, repeated or mismatched shard, or a
// scenario in two shards.
var ErrMerge = errors.New("cannot merge")

// MergeReplay combines the replay results of the shards of one suite into
// the result of the whole suite, recomputing the summary from the scenarios.
// names[i] names results[i] in errors. Every result must carry a shard of the
// same total, each index from 1 to the total exactly once, and every scenario
// must belong to the shard it is in and appear once; a single result without
// a shard is returned re-summarised.
func MergeReplay(names []string, results []*Replay) (*Replay, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("%w: no results given", ErrMerge)
	}
	if len(results) == 1 && results[0].Shard == nil {
		return NewReplay(results[0].Scenarios, nil), nil
	}
	shards := make([]*Shard, len(results))
	for i, r := range results {
		shards[i] = r.Shard
	}
	if err := CheckShards(names, shards); err != nil {
		return nil, err
	}
	var all []ScenarioResult
	seen := map[string]string{}
	for i, r := range results {
		for _, s := range r.Scenarios {
			if other, dup := seen[s.Name]; dup {
				return nil, fmt.Errorf("%w: scenario %q is in both %s and %s (overlapping shards)", ErrMerge, s.Name, other, names[i])
			}
			seen[s.Name] = names[i]
			if !r.Shard.Contains(s.Name) {
				return nil, fmt.Errorf("%w: %s: scenario %q does not belong to shard %s (sharded by another version or by hand?)", ErrMerge, names[i], s.Name, r.Shard)
			}
			all = append(all, s)
		}
	}
	return NewReplay(all, nil), nil
}

// CheckShards checks that shards (of the results named by names) are each
// index 1..total of one total exactly once, and returns an error wrapping
// ErrMerge that says what is missing, repeated or mismatched.
func CheckShards(names []string, shards []*Shard) error {
	total := 0
	byIndex := map[int]string{}
	for i, s := range shards {
		if s == nil {
			return fmt.Errorf("%w: %s is not a shard (run with --shard i/n); only shard results can be merged", ErrMerge, names[i])
		}
		if total == 0 {
			total = s.Total
		}
		if s.Total != total {
			return fmt.Errorf("%w: %s is shard %s but %s is shard %s: the totals differ", ErrMerge, names[i], s, names[0], shards[0])
		}
		if other, dup := byIndex[s.Index]; dup {
			return fmt.Errorf("%w: shard %s is given twice: %s and %s (overlapping shards)", ErrMerge, s, other, names[i])
		}
		byIndex[s.Index] = names[i]
	}
	var missing []string
	for i := 1; i <= total; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, total))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing shard %s of %d", ErrMerge, strings.Join(missing, ", "), total)
	}
	return nil
}
