package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// bigTape is issue 21's scenario: 20 responses of 1000 echo calls each, then
// a final text (1,218,568 bytes).
func bigTape() []byte {
	var b strings.Builder
	b.WriteString("format: tapeloop/v1\nsetup:\n  tools: [echo]\n  loop: {max_iterations: 10000}\ninput:\n  - {role: user, content: go}\ntape:\n")
	for i := range 20 * 1000 {
		if i%1000 == 0 {
			b.WriteString("  - response:\n      tool_calls:\n")
		}
		fmt.Fprintf(&b, "        - {id: c%d, name: echo, arguments: {text: t%d}}\n", i, i)
	}
	b.WriteString("  - response: {content: done}\n")
	return []byte(b.String())
}

// BenchmarkReplayUpdateRSS measures the peak memory of `evalrun replay
// --update` as the operating system counts it (the maximum resident set size
// of the process, rusage's maxrss), on issue 21's 20,000-call tape and on a
// one-call tape beside it (what the binary itself costs). The bound
// is 20 times the scenario's size plus 40 MB: bound-MB reports it, big-MB and
// small-MB the two peaks, over-bound-MB how far big-MB is above the bound
// (0 when within). It builds cmd/evalrun once, like BenchmarkStartup.
//
//	go test -run '^$' -bench ReplayUpdateRSS -benchtime 5x ./bench
func BenchmarkReplayUpdateRSS(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "evalrun")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/tapeloop/tapeloop/cmd/evalrun").CombinedOutput(); err != nil {
		b.Fatalf("building evalrun: %v\n%s", err, out)
	}
	big := bigTape()
	small := []byte("format: tapeloop/v1\nsetup:\n  tools: [echo]\ninput:\n  - {role: user, content: go}\ntape:\n  - response:\n      tool_calls:\n        - {id: c0, name: echo, arguments: {text: t0}}\n  - response: {content: done}\n")
	dirs := map[string][]byte{"big": big, "small": small}
	for name, data := range dirs {
		dir := filepath.Join(b.TempDir(), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		dirs[name] = []byte(dir)
	}
	peak := func(dir string) float64 {
		cmd := exec.Command(bin, "replay", "--update", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("evalrun replay --update %s: %v\n%s", dir, err, out)
		}
		return float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) / 1024 // kB on Linux
	}
	var bigMB, smallMB float64
	for b.Loop() {
		bigMB = max(bigMB, peak(string(dirs["big"])))
		smallMB = max(smallMB, peak(string(dirs["small"])))
	}
	bound := 20*float64(len(big))/(1<<20) + 40
	b.ReportMetric(bigMB, "big-MB")
	b.ReportMetric(smallMB, "small-MB")
	b.ReportMetric(bound, "bound-MB")
	b.ReportMetric(max(0, bigMB-bound), "over-bound-MB")
}

// BenchmarkReplayPacing measures what the collector's pacing (package
// internal/gcpace, which `evalrun replay` runs unless GOGC or GOMEMLIMIT is
// set) costs in CPU on issue 21's 20,000-call tape, whose heap it keeps
// near 10 times the file instead of twice what is live: `evalrun replay`
// of the tape (its golden written first) as it runs, and with GOGC=100,
// Go's default, which turns the pacing off. cpu-ms is the child's user and
// system time; ns/op its wall time.
//
//	go test -run '^$' -bench ReplayPacing -benchtime 10x ./bench
func BenchmarkReplayPacing(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "evalrun")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/tapeloop/tapeloop/cmd/evalrun").CombinedOutput(); err != nil {
		b.Fatalf("building evalrun: %v\n%s", err, out)
	}
	dir := filepath.Join(b.TempDir(), "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), bigTape(), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(bin, "replay", "--update", dir).CombinedOutput(); err != nil {
		b.Fatalf("evalrun replay --update: %v\n%s", err, out)
	}
	for _, c := range []struct{ name, env string }{{"paced", ""}, {"gogc100", "GOGC=100"}} {
		b.Run(c.name, func(b *testing.B) {
			var cpu float64
			for b.Loop() {
				cmd := exec.Command(bin, "replay", dir)
				cmd.Env = os.Environ()
				if c.env != "" {
					cmd.Env = append(cmd.Env, c.env)
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("evalrun replay: %v\n%s", err, out)
				}
				cpu += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds() * 1000
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-ms/op")
		})
	}
}
