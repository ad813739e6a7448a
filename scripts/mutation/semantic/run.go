package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/covermap"
)

// The verdicts on a mutant.
const (
	Killed     = "KILLED"      // a covering test failed
	Lived      = "LIVED"       // every covering test passed
	NotCovered = "NOT COVERED" // no test runs its line
	TimedOut   = "TIMED OUT"   // the covering tests ran past the timeout: counted as killed
	Allowed    = "ALLOWED"     // lived, and the allowlist says why no test can kill it
)

// verdict is a mutant's result.
type verdict struct {
	m     *Mutant
	state string
	tests int // the covering tests run
	// alone is the covering tests' time alone (the coverage map's), budget
	// the time the run was allowed, took the time it took.
	alone, budget, took time.Duration
	note                string // why it timed out, and where its output is
}

// with returns v with the state and note set.
func (v verdict) with(state, note string) verdict {
	v.state, v.note = state, note
	return v
}

// times describes how long the run took, against the tests' time alone.
func (v verdict) times() string {
	if v.state == NotCovered {
		return ""
	}
	s := fmt.Sprintf("[%.1fs; alone %.1fs]", v.took.Seconds(), v.alone.Seconds())
	if v.note != "" {
		s += " " + v.note
	}
	return s
}

// runner runs one package's mutants.
type runner struct {
	goCmd       string
	pkgDir      string // relative to the module root, the current folder
	work        string // scratch folder for this package
	maps        string // folder of coverage maps, shared with mutantgo
	workers     int
	coefficient int
	slack       time.Duration // added to each allowance (10 s from the command)
	progress    func(done, total int, v verdict)
}

// testBinary builds the package's tests with the schemata overlaid.
func (r *runner) testBinary(s *schemata) (string, error) {
	ov, err := s.writeOverlay(filepath.Join(r.work, "overlay"))
	if err != nil {
		return "", err
	}
	bin := filepath.Join(r.work, "pkg.test")
	cmd := exec.Command(r.goCmd, "test", "-c", "-o", bin, "-overlay", ov, "-vet=off", "-gcflags=-l", "-ldflags=-w", "./"+r.pkgDir)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s's tests with its mutants: %v\n%s", r.pkgDir, err, out)
	}
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s has no tests", r.pkgDir)
	}
	return bin, nil
}

// coverage returns the package's coverage map, made unless the maps folder
// already holds it.
func (r *runner) coverage() (*covermap.Map, error) {
	path := filepath.Join(r.maps, strings.ReplaceAll(r.pkgDir, "/", "_")+".map")
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(r.maps, 0o755); err != nil {
			return nil, err
		}
		if err := covermap.Write(r.goCmd, r.pkgDir, path); err != nil {
			return nil, err
		}
	}
	return covermap.Read(path)
}

// run runs each mutant's covering tests in bin and returns the verdicts in
// the mutants' order.
func (r *runner) run(ctx context.Context, bin string, cov *covermap.Map, ms []*Mutant) []verdict {
	out := make([]verdict, len(ms))
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range r.workers {
		wg.Go(func() {
			for i := range jobs {
				v := r.one(ctx, bin, cov, ms[i])
				out[i] = v
				mu.Lock()
				done++
				if r.progress != nil {
					r.progress(done, len(ms), v)
				}
				mu.Unlock()
			}
		})
	}
	for i := range ms {
		if ctx.Err() != nil {
			break
		}
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return out
}

// one runs the tests covering m's line with m switched on.
//
// Each covering test may take r.coefficient times its time alone (the
// coverage map's) plus r.slack; the whole run may take the sum of those, and
// is given it as -test.timeout, so that a run that hangs outside any one test
// still ends itself with its goroutines' stacks. A test past its own
// allowance is sent SIGQUIT (its stacks too).
//
// A test can also be slow for the machine's sake (one that builds a
// program, on a loaded machine), and a timeout counts as a kill: so a run
// that times out is run again with twice the allowances, and only a second
// timeout makes the mutant timed out. The output of each timed-out run is
// kept in r.work/timedout (KEY-1.txt, KEY.txt).
func (r *runner) one(ctx context.Context, bin string, cov *covermap.Map, m *Mutant) verdict {
	tests := cov.Lines[fmt.Sprintf("%s:%d", m.File, m.Line)]
	if len(tests) == 0 {
		return verdict{m: m, state: NotCovered}
	}
	v := r.attempt(ctx, bin, cov, m, tests, 1, m.Key+"-1")
	if v.state != TimedOut || ctx.Err() != nil {
		return v
	}
	again := r.attempt(ctx, bin, cov, m, tests, 2, m.Key)
	again.took += v.took
	if again.state == TimedOut {
		return again.with(TimedOut, "timed out twice: "+v.note+"; then "+again.note)
	}
	return again.with(again.state, "after a first run timed out: "+v.note)
}

// attempt runs the tests covering m with m switched on, the allowances
// scaled by scale; a timed-out run's output is kept as
// r.work/timedout/NAME.txt.
func (r *runner) attempt(ctx context.Context, bin string, cov *covermap.Map, m *Mutant, tests []string, scale int, name string) verdict {
	coefficient, slack := time.Duration(scale*r.coefficient), time.Duration(scale)*r.slack
	each := map[string]time.Duration{}
	var alone, budget time.Duration
	for _, t := range tests {
		took, ok := cov.Took[t]
		alone += took
		if ok {
			each[t] = coefficient*took + slack
		}
	}
	budget = coefficient*alone + slack
	v := verdict{m: m, tests: len(tests), alone: alone, budget: budget}
	// The binary ends itself at budget; this backstop ends what does not.
	ctx, cancel := context.WithTimeout(ctx, budget+slack+30*time.Second)
	defer cancel()
	if err := os.MkdirAll(filepath.Join(r.work, "out"), 0o755); err != nil {
		return v.with(Killed, "cannot keep its output: "+err.Error())
	}
	outPath := filepath.Join(r.work, "out", name+".txt")
	out, err := os.Create(outPath)
	if err != nil {
		return v.with(Killed, "cannot keep its output: "+err.Error())
	}
	defer os.Remove(outPath)
	defer out.Close()
	w := newWatch(each, time.Now)
	sink := w.teeTo(out)
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.count=1", "-test.failfast",
		"-test.v=test2json", "-test.timeout="+budget.String())
	cmd.Dir = r.pkgDir
	cmd.Env = append(os.Environ(), "TAPELOOP_MUTANT="+strconv.Itoa(m.ID))
	cmd.Stdout, cmd.Stderr = sink, sink
	// A process a test started may hold the output open after the binary
	// ended: stop waiting for it.
	cmd.WaitDelay = 5 * time.Second
	// Its own process group, so that a timeout ends the processes a test
	// started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return v.with(Killed, "cannot start: "+err.Error())
	}
	waited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(waited)
	}()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	overdue := ""
	for done := false; !done; {
		select {
		case <-waited:
			done = true
		case <-tick.C:
			if overdue != "" {
				continue
			}
			if name, allowed, late := w.overdue(); late {
				overdue = fmt.Sprintf("%s ran past its %s", name, allowed.Round(time.Second))
				// Its stacks, then (the backstop) its process group.
				cmd.Process.Signal(syscall.SIGQUIT)
				time.AfterFunc(slack, cancel)
			}
		}
	}
	v.took = time.Since(start)
	if overdue != "" || ctx.Err() == context.DeadlineExceeded || timedOutItself(outPath) {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if overdue == "" {
			overdue = fmt.Sprintf("the run went past its %s", budget.Round(time.Second))
		}
		return v.with(TimedOut, overdue+"; output: "+keep(outPath, filepath.Join(r.work, "timedout", name+".txt")))
	}
	if cmd.ProcessState != nil && cmd.ProcessState.Success() {
		return v.with(Lived, "")
	}
	return v.with(Killed, "")
}

// timedOutItself reports whether the test binary's output, at path, ends
// with the testing package's own timeout (-test.timeout).
func timedOutItself(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const tail = 1 << 20
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		f.Seek(fi.Size()-tail, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return bytes.Contains(b, []byte("panic: test timed out after "))
}

// keep moves the output at path to dest and returns dest, or says why it
// could not.
func keep(path, dest string) string {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "not kept: " + err.Error()
	}
	if err := os.Rename(path, dest); err != nil {
		return "not kept: " + err.Error()
	}
	return dest
}

// sample returns n of ms chosen by a hash of each key and seed (all when n
// is 0 or at least len(ms)), in ms's order: the same n, seed and code
// choose the same mutants.
func sample(ms []*Mutant, n int, seed string) []*Mutant {
	if n <= 0 || n >= len(ms) {
		return ms
	}
	type ranked struct {
		m    *Mutant
		rank string
	}
	rs := make([]ranked, len(ms))
	for i, m := range ms {
		h := sha256.Sum256([]byte(seed + "\x00" + m.File + "\x00" + m.Key))
		rs[i] = ranked{m, string(h[:])}
	}
	slices.SortFunc(rs, func(a, b ranked) int { return strings.Compare(a.rank, b.rank) })
	out := make([]*Mutant, n)
	for i := range n {
		out[i] = rs[i].m
	}
	order := map[*Mutant]int{}
	for i, m := range ms {
		order[m] = i
	}
	slices.SortFunc(out, func(a, b *Mutant) int { return order[a] - order[b] })
	return out
}
