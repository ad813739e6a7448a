package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
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
}

// runner runs one package's mutants.
type runner struct {
	goCmd       string
	pkgDir      string // relative to the module root, the current folder
	work        string // scratch folder for this package
	maps        string // folder of coverage maps, shared with mutantgo
	workers     int
	coefficient int
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
func (r *runner) one(ctx context.Context, bin string, cov *covermap.Map, m *Mutant) verdict {
	tests := cov.Lines[fmt.Sprintf("%s:%d", m.File, m.Line)]
	if len(tests) == 0 {
		return verdict{m: m, state: NotCovered}
	}
	var budget time.Duration
	for _, t := range tests {
		budget += cov.Took[t]
	}
	budget = time.Duration(r.coefficient)*budget + 10*time.Second
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^("+strings.Join(tests, "|")+")$", "-test.count=1", "-test.failfast")
	cmd.Dir = r.pkgDir
	cmd.Env = append(os.Environ(), "TAPELOOP_MUTANT="+strconv.Itoa(m.ID))
	// Its own process group, so that a timeout ends the processes a test
	// started too.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return verdict{m: m, state: TimedOut, tests: len(tests)}
	case err == nil:
		return verdict{m: m, state: Lived, tests: len(tests)}
	default:
		return verdict{m: m, state: Killed, tests: len(tests)}
	}
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
