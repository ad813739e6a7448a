package evalrun

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"

	"github.com/tapeloop/tapeloop/report"
)

// spool keeps a replay's scenario results in a temporary file as they
// finish, and in memory only what orders and counts them (name, path,
// counts, where each lies in the file): the --json, --junit and --html
// outputs read them back one at a time (report.ReplayStream), so that a
// replay's memory does not grow with its suite. It is a
// report.ScenarioSource once sorted.
type spool struct {
	mu      sync.Mutex
	f       *os.File
	size    int64
	entries []spoolEntry
	buf     []byte
}

// spoolEntry is one result in the file: seq is its place in the order
// the scenarios were found, key its name and path (canonical order), one
// its counts.
type spoolEntry struct {
	seq int
	key report.ScenarioResult
	off int64
	n   int
	one report.ReplaySummary
}

// newSpool creates the spool's file in the temporary folder.
func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", "tapeloop-replay-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("keeping the results for the reports: %w", err)
	}
	return &spool{f: f}, nil
}

// add keeps r, the seq'th scenario found. It may be called concurrently.
func (s *spool) add(seq int, r *report.ScenarioResult) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("keeping the result of %s for the reports: %w", r.Path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.WriteAt(b.Bytes(), s.size); err != nil {
		return fmt.Errorf("keeping the result of %s for the reports: %w", r.Path, err)
	}
	s.entries = append(s.entries, spoolEntry{seq: seq, key: report.ScenarioResult{Name: r.Name, Path: r.Path},
		off: s.size, n: b.Len(), one: report.ReplaySummary{}.Add(r)})
	s.size += int64(b.Len())
	return nil
}

// sort puts the results in canonical order (report.SortScenarios's: the
// order found, then stably by path and name) and returns their summary.
func (s *spool) sort() report.ReplaySummary {
	slices.SortFunc(s.entries, func(a, b spoolEntry) int { return cmp.Compare(a.seq, b.seq) })
	slices.SortStableFunc(s.entries, func(a, b spoolEntry) int { return report.CompareScenarios(&a.key, &b.key) })
	var sum report.ReplaySummary
	for _, e := range s.entries {
		sum = sum.Merge(e.one)
	}
	return sum
}

// Len is the number of results kept.
func (s *spool) Len() int { return len(s.entries) }

// Scenario reads back the i'th result in the order sort left.
func (s *spool) Scenario(i int) (*report.ScenarioResult, error) {
	e := s.entries[i]
	if cap(s.buf) < e.n {
		s.buf = make([]byte, e.n)
	}
	b := s.buf[:e.n]
	if _, err := s.f.ReadAt(b, e.off); err != nil {
		return nil, fmt.Errorf("reading back the result of %s: %w", e.key.Path, err)
	}
	var r report.ScenarioResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("reading back the result of %s: %w", e.key.Path, err)
	}
	return &r, nil
}

// close removes the spool's file.
func (s *spool) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
