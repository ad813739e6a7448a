package harness

import (
	"os/exec"
	"strings"
	"testing"
)

// TestWhatUsersLink pins the layout docs/design.md draws, where it matters
// to a user's binary: a replay-only test (harness, scenario) links no
// provider SDK and no MCP SDK, decoding a report links no harness, and the
// evalrun library leaves registering providers to main.
func TestWhatUsersLink(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to list dependencies")
	}
	deps := func(pkg string) []string {
		out, err := exec.Command(goTool, "list", "-deps", "github.com/tapeloop/tapeloop/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		return strings.Fields(string(out))
	}
	forbidden := func(pkg string, prefixes ...string) {
		for _, d := range deps(pkg) {
			for _, p := range prefixes {
				if d == p || strings.HasPrefix(d, p+"/") {
					t.Errorf("%s links %s", pkg, d)
				}
			}
		}
	}
	sdks := []string{"github.com/openai/openai-go/v3", "github.com/anthropics/anthropic-sdk-go", "github.com/modelcontextprotocol/go-sdk",
		"github.com/tapeloop/tapeloop/mcptools", "github.com/tapeloop/tapeloop/llm/builtin", "github.com/onsi/ginkgo/v2", "github.com/onsi/gomega"}
	forbidden("harness", sdks...)
	forbidden("scenario", sdks...)
	forbidden("report", append(sdks, "github.com/tapeloop/tapeloop/harness", "github.com/tapeloop/tapeloop/scenario")...)
	forbidden("evalrun", "github.com/tapeloop/tapeloop/llm/builtin", "github.com/openai/openai-go/v3", "github.com/anthropics/anthropic-sdk-go")
}

// TestLayers pins the rows of docs/design.md that keep one front door: no
// package below harness imports bridge or harness (the bridge sits behind
// harness.Runner, as a RoundTripper behind an http.Client); internal/
// packages import nothing of tapeloop above them (only other internal/
// ones, and leaves such as fileerr that import no tapeloop package); and
// scenario, the format, links no HTTP code, holding tapes (package tape)
// and faults (llm/faults/faultspec) as data apart from what runs them
// (replay, llm/faults).
func TestLayers(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("skipped: no go command on PATH to list dependencies")
	}
	const mod = "github.com/tapeloop/tapeloop"
	// list runs go list with format f over the packages pkgs, one line each.
	list := func(f string, pkgs ...string) []string {
		args := append([]string{"list", "-f", f}, pkgs...)
		out, err := exec.Command(goTool, args...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", pkgs, err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	below := []string{"../scenario/...", "../tape/...", "../redact/...", "../replay/...", "../diffrecorder/...", "../fixtures/...", "../tools/...", "../agent/...",
		"../llm/...", "../clock/...", "../workspace/...", "../internal/...", "../mcptools/...", "../traceimport/..."}
	for _, line := range list(`{{.ImportPath}} {{join .Deps " "}}`, below...) {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, d := range strings.Fields(deps) {
			switch d {
			case mod + "/bridge", mod + "/harness", mod + "/eval", mod + "/evalrun":
				t.Errorf("%s, below harness, links %s", pkg, d)
			}
		}
	}
	// leaf reports whether the tapeloop package pkg imports no other one
	// (package fileerr): below internal/, which may use it.
	leaf := func(pkg string) bool {
		for _, d := range strings.Fields(list(`{{join .Imports " "}}`, pkg)[0]) {
			if strings.HasPrefix(d, mod+"/") {
				return false
			}
		}
		return true
	}
	for _, line := range list(`{{.ImportPath}} {{join .Imports " "}}`, "../internal/...") {
		pkg, imports, _ := strings.Cut(line, " ")
		for _, d := range strings.Fields(imports) {
			if strings.HasPrefix(d, mod+"/") && !strings.HasPrefix(d, mod+"/internal/") && !leaf(d) {
				t.Errorf("%s imports %s, above internal/", pkg, d)
			}
		}
	}
	// The format runs nothing and links no HTTP code: not scenario, nor
	// what it is made of (the tape's data and codec, the redaction policy,
	// the faults it describes), nor the vocabulary of model calls.
	for _, line := range list(`{{.ImportPath}} {{join .Deps " "}}`, "../scenario", "../tape", "../redact", "../llm/faults/faultspec", "../llm") {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, d := range strings.Fields(deps) {
			if d == "net/http" || strings.HasPrefix(d, "net/http/") {
				t.Errorf("%s links %s: the format runs no HTTP", pkg, d)
			}
		}
	}
	// The tape has one owner: tape is the data and codec, below what runs
	// it (replay) and what redacts it (redact); scenario holds tapes and
	// faults as data, never the packages that serve, record or inject them.
	imports := func(pkg string) map[string]bool {
		m := map[string]bool{}
		for _, d := range strings.Fields(list(`{{join .Imports " "}}`, pkg)[0]) {
			m[strings.TrimPrefix(d, mod+"/")] = true
		}
		return m
	}
	for _, c := range []struct {
		pkg string
		not []string // what pkg must not import
	}{
		{"../tape", []string{"replay", "redact", "scenario", "llm/wire"}},
		{"../redact", []string{"replay", "scenario", "llm/wire"}},
		{"../scenario", []string{"replay", "llm/faults", "llm/wire", "bridge"}},
		{"../llm/faults/faultspec", []string{"llm", "llm/faults", "llm/wire"}},
	} {
		got := imports(c.pkg)
		for _, d := range c.not {
			if got[d] {
				t.Errorf("%s imports %s", strings.TrimPrefix(c.pkg, "../"), d)
			}
		}
	}
	if got := imports("../replay"); !got["tape"] || !got["redact"] {
		t.Errorf("replay does not import tape and redact (the format and the policy it runs): %v", got)
	}
}
