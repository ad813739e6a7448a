package bench

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkStartup measures evalrun as a user runs it: a fresh process per
// iteration, `evalrun version` (start-up alone) and `evalrun replay` of one
// small scenario (start-up and a replay), from the repository root. It builds
// cmd/evalrun once, into the benchmark's temporary directory, so a plain
// `go test ./...` builds nothing. Besides ns/op it reports the package
// initialisation of one `version` run, from GODEBUG=inittrace=1: init-ms
// (noisy) and init-KB (allocated by package inits: stable, the figure a
// regression shows in).
//
//	go test -run '^$' -bench Startup -benchtime 21x ./bench
func BenchmarkStartup(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "evalrun")
	build := exec.Command("go", "build", "-o", bin, "github.com/tapeloop/tapeloop/cmd/evalrun")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building evalrun: %v\n%s", err, out)
	}
	root, err := filepath.Abs("..")
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"version", []string{"version"}},
		{"replay-append-line", []string{"replay", "scenarios/files/append-line.yaml"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command(bin, c.args...)
				cmd.Dir = root
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("evalrun %s: %v\n%s", strings.Join(c.args, " "), err, out)
				}
			}
			if c.name == "version" {
				ms, kb := initTrace(b, bin, root)
				b.ReportMetric(ms, "init-ms")
				b.ReportMetric(kb, "init-KB")
			}
		})
	}
}

// initTrace runs `evalrun version` with GODEBUG=inittrace=1 and sums the
// reported package initialisations: clock milliseconds and kilobytes.
func initTrace(b *testing.B, bin, dir string) (ms, kb float64) {
	cmd := exec.Command(bin, "version")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		b.Fatalf("evalrun version: %v\n%s", err, stderr.Bytes())
	}
	// init pkg @0.1 ms, 0.02 ms clock, 144 bytes, 2 allocs
	sc := bufio.NewScanner(&stderr)
	n := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 9 || f[0] != "init" || f[6] != "clock," || f[8] != "bytes," {
			continue
		}
		clock, err1 := strconv.ParseFloat(f[4], 64)
		by, err2 := strconv.ParseFloat(f[7], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("unexpected inittrace line %q", sc.Text())
		}
		ms += clock
		kb += by / 1024
		n++
	}
	if n == 0 {
		b.Fatalf("no inittrace lines in:\n%s", stderr.Bytes())
	}
	return ms, kb
}
