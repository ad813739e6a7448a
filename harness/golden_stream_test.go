package harness

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// streamCases are outcomes whose goldens a stream must write exactly:
// small and large, with the scenario's folder, a program's path, keys a
// redaction finds, a private key block at several distances from where the
// writer and the redaction cut, and a line longer than a chunk.
func streamCases(t *testing.T) map[string]*Outcome {
	dir := t.TempDir()
	const key = "sk-proj-Gd4QmZ2xW7pRs4TuV8yNa3Bc6"
	pem := "-----BEGIN EC PRIVATE KEY-----\n" + strings.Repeat("MHcCAQEEIBkg4LVWM9nuwNSk3yByxZpYRTBnVJk5dR0Vt9dGxqYkoAoGCCqGSM49\n", 12) + "-----END EC PRIVATE KEY-----\n"
	calls := func(n int, result func(i int) string) []CallOutcome {
		out := make([]CallOutcome, n)
		for i := range out {
			out[i] = testCall{ID: fmt.Sprintf("c%d", i), Name: "echo", Arguments: fmt.Sprintf(`{"text":"t%d"}`, i), Result: result(i)}.call()
		}
		return out
	}
	cases := map[string]*Outcome{
		"empty": {Name: "e", Termination: "final_text"},
		"one call": {Name: "one", Termination: "final_text", Final: "done",
			Turns: []TurnOutcome{{Index: 1, Calls: calls(1, func(int) string { return "ok" })}}},
		"20,000 calls, one in 997 naming the folder or a key": {Name: "big", Termination: "final_text", Final: "done",
			Places: []Place{{Path: dir, Name: PlaceScenarioDir}},
			Turns: []TurnOutcome{
				{Index: 1, Calls: calls(10000, func(i int) string {
					switch i % 997 {
					case 0:
						return "read " + filepath.Join(dir, "notes.txt")
					case 1:
						return "the key is " + key
					}
					return fmt.Sprintf(`{"text":"t%d"}`, i)
				})},
				{Index: 2, Calls: calls(10000, func(i int) string { return "fork/exec /no/such/dir/sh: not found\n" + dir + "/x" })},
			}},
		"a line longer than a chunk": {Name: "long", Termination: "final_text",
			Turns: []TurnOutcome{{Index: 1, Calls: calls(3000, func(i int) string {
				if i == 1500 {
					return strings.Repeat("y", 3*goldenChunk) + " " + key
				}
				return "ok"
			})}}},
	}
	// A private key begun in one call's result and ended in the next one's,
	// every 7 calls: some pairs straddle where the writer hands its text on.
	cases["private keys across calls"] = &Outcome{Name: "pem2", Termination: "final_text",
		Turns: []TurnOutcome{{Index: 1, Calls: calls(3000, func(i int) string {
			switch i % 7 {
			case 0:
				return pem[:strings.Index(pem, "\n")+1] + "MHcCAQEEIBkg4LVWM9nuwNSk\n"
			case 1:
				return "MHcCAQEEIBkg4LVWM9nuwNSk\n" + pem[strings.Index(pem, "-----END"):]
			}
			return fmt.Sprintf("line %d", i)
		})}}}
	// A private key at many distances from the cuts.
	for _, at := range []int{400, 700, 1100, 1500} {
		cases[fmt.Sprintf("a private key in call %d", at)] = &Outcome{Name: "pem", Termination: "final_text",
			Turns: []TurnOutcome{{Index: 1, Calls: calls(3000, func(i int) string {
				if i >= at && i < at+3 {
					return "id_ec:\n" + pem
				}
				return fmt.Sprintf("line %d of a result\nand its second line", i)
			})}},
			Workspace: []FileState{{Path: "id_ec", Content: pem}}}
	}
	return cases
}

// TestStreamGoldenIsGolden: the golden streamed piece by piece is Golden's
// text byte for byte, and no piece holds more than a few chunks (a long
// line or a key block excepted).
func TestStreamGoldenIsGolden(t *testing.T) {
	r := redact.Default()
	for name, o := range streamCases(t) {
		want, err := o.Golden(r)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		largest := 0
		ok, err := o.streamGolden(r, func(piece []byte) {
			got = append(got, piece...)
			largest = max(largest, len(piece))
		})
		if err != nil || !ok {
			t.Fatalf("%s: streamGolden: %v, %v", name, ok, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the streamed golden differs from Golden's (- Golden, + streamed):\n%s", name, firstDiff(want, got))
		}
		if len(want) > 8*goldenChunk && name != "a line longer than a chunk" && largest > goldenChunk+spillAt {
			t.Errorf("%s: a piece of %d bytes, of a golden of %d", name, largest, len(want))
		}
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("at byte %d:\n- %q\n+ %q", i, a[from:min(i+80, len(a))], b[from:min(i+80, len(b))])
}

// TestSameAsGolden: the streamed comparison is true for the file Golden
// writes, and false for a file differing anywhere by a byte, shorter,
// longer, missing, or reached through a link.
func TestSameAsGolden(t *testing.T) {
	r := redact.Default()
	o := streamCases(t)["20,000 calls, one in 997 naming the folder or a key"]
	want, err := o.Golden(r)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "g.golden.yaml")
	check := func(what string, data []byte, same bool) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := o.sameAsGolden(path, r); got != same || err != nil {
			t.Errorf("%s: sameAsGolden = %v, %v; want %v", what, got, err, same)
		}
	}
	check("the golden", want, true)
	for _, at := range []int{0, len(want) / 3, len(want) - 2} {
		changed := bytes.Clone(want)
		changed[at]++
		check(fmt.Sprintf("a byte changed at %d", at), changed, false)
	}
	check("one byte short", want[:len(want)-1], false)
	check("one byte more", append(bytes.Clone(want), '\n'), false)
	check("empty", nil, false)
	os.Remove(path)
	if same, err := o.sameAsGolden(path, r); same || err != nil {
		t.Errorf("a missing golden: %v, %v", same, err)
	}
	real := filepath.Join(dir, "real.yaml")
	os.WriteFile(real, want, 0o644)
	if err := os.Symlink(real, path); err != nil {
		t.Skip(err)
	}
	if same, _ := o.sameAsGolden(path, r); same {
		t.Error("a link was read as the golden (links go through the whole comparison, which checks where they lead)")
	}
}

// TestVerifyLeavesNoGoldenOpen: a replay that finds its golden unchanged
// (compared with the file as it streams) leaves the file closed, so that
// a process replaying again and again does not run out of descriptors.
func TestVerifyLeavesNoGoldenOpen(t *testing.T) {
	if _, err := os.ReadDir("/proc/self/fd"); err != nil {
		t.Skipf("no /proc/self/fd to count open files (%v)", err)
	}
	path := filepath.Join(t.TempDir(), "log.yaml")
	if err := os.WriteFile(path, readAppend(3), 0o644); err != nil {
		t.Fatal(err)
	}
	if v := Verify(context.Background(), path, &VerifyOptions{Update: true}); v.Err != nil || !v.Passed() || !v.Updated {
		t.Fatalf("blessing: %v, %v", v.Err, v.Failure())
	}
	for range 3 {
		if v := Verify(context.Background(), path, nil); v.Err != nil || !v.Passed() {
			t.Fatalf("replay: %v, %v", v.Err, v.Failure())
		}
	}
	golden := scenario.GoldenPath(path)
	fds, _ := os.ReadDir("/proc/self/fd")
	for _, fd := range fds {
		if target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && target == golden {
			t.Errorf("file descriptor %s is still open on the golden %s", fd.Name(), golden)
		}
	}
}

// TestJudgeOutcomeHoldsNoWholeGolden: judging an outcome whose golden is
// unchanged allocates less than the golden's size (it was four times it:
// the golden built, the file read, two copies placing the folder), for a
// replay and an update alike.
func TestJudgeOutcomeHoldsNoWholeGolden(t *testing.T) {
	if raceEnabled {
		t.Skip("under the race detector sync.Pool, which holds the redaction's working memory, drops what it is given at random")
	}
	dir := t.TempDir()
	s := &scenario.Scenario{Path: filepath.Join(dir, "big.yaml"), Name: "big"}
	// Issue 39's tape's outcome: 20 turns of 1,000 echo calls.
	o := &Outcome{Name: "big", Termination: "final_text", Iterations: 21, Final: "done", Places: []Place{ScenarioPlace(s.Path)}}
	for turn := range 20 {
		calls := make([]CallOutcome, 1000)
		for i := range calls {
			n := turn*1000 + i
			calls[i] = testCall{ID: fmt.Sprintf("c%d", n), Name: "echo", Arguments: fmt.Sprintf(`{"text":"t%d"}`, n), Result: fmt.Sprintf(`{"text":"t%d"}`, n)}.call()
		}
		o.Turns = append(o.Turns, TurnOutcome{Index: turn + 1, Calls: calls})
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenario.GoldenPath(s.Path), golden, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, update := range []bool{false, true} {
		// The least of a few runs: the counter is the process's.
		allocated := uint64(math.MaxUint64)
		for range 3 {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			v := judgeOutcome(s, o, &VerifyOptions{Update: update, Redactor: redact.Default()})
			runtime.ReadMemStats(&after)
			if !v.Passed() || v.Updated {
				t.Fatalf("update %v: passed %v, updated %v: %v %v", update, v.Passed(), v.Updated, v.Err, v.Failures)
			}
			allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
		}
		t.Logf("update %v: %d bytes allocated for a golden of %d", update, allocated, len(golden))
		if allocated >= uint64(len(golden)) {
			t.Errorf("update %v: judging an unchanged golden of %d bytes allocated %d bytes, want less than the golden", update, len(golden), allocated)
		}
	}
	// An update where there is no golden yet writes it as it is made:
	// the same bytes, never held whole (before, 3 times the golden).
	allocated := uint64(math.MaxUint64)
	for range 3 {
		if err := os.Remove(scenario.GoldenPath(s.Path)); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := judgeOutcome(s, o, &VerifyOptions{Update: true, Redactor: redact.Default()})
		runtime.ReadMemStats(&after)
		if !v.Passed() || !v.Updated {
			t.Fatalf("update of a missing golden: passed %v, updated %v: %v %v", v.Passed(), v.Updated, v.Err, v.Failures)
		}
		allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
	}
	t.Logf("update of a missing golden: %d bytes allocated for a golden of %d", allocated, len(golden))
	if allocated >= uint64(len(golden)) {
		t.Errorf("writing a missing golden of %d bytes allocated %d bytes, want less than the golden", len(golden), allocated)
	}
	if written, err := os.ReadFile(scenario.GoldenPath(s.Path)); err != nil || !bytes.Equal(written, golden) {
		t.Errorf("the golden written as it was made differs from Golden's (%d bytes, want %d): %v", len(written), len(golden), err)
	}
}
