package evalrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusTraces returns the shared corpus of exported traces (see its
// README.txt): under $TAPELOOP_CORPORA when set, else in shared/corpora
// beside one of the package's parents (the repository, or a worktree next
// to it); "" when it is absent.
func corpusTraces() string {
	if dir := os.Getenv("TAPELOOP_CORPORA"); dir != "" {
		return filepath.Join(dir, "traces")
	}
	for up := ".."; len(up) < 20; up += "/.." {
		if d := filepath.Join(up, "shared", "corpora", "traces"); isDir(d) {
			return d
		}
	}
	return ""
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// TestImportCorpus imports every trace of the corpus: each run must be
// imported into a scenario that lints and replays, or be refused with the
// reason given here.
func TestImportCorpus(t *testing.T) {
	dir := corpusTraces()
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) == 0 {
		t.Skip("SKIP: the trace corpus (shared/corpora/traces) is not on this machine: nothing to import (set TAPELOOP_CORPORA to the corpora directory)")
	}
	// What each file comes to: the scenarios written, and the reason
	// each refusal must give.
	want := map[string]struct {
		written []string
		refused []string
	}{
		"adk-go__delegation__span_and_event-otel_semconv_1_44.json":               {written: []string{"-1", "-2"}},
		"adk-go__streaming__span_and_event-otel_semconv_1_44.json":                {written: []string{""}},
		"adk-go__toolcall__event_only-otel_semconv_1_44.json":                     {written: []string{""}},
		"adk-go__toolcall__inference-error-span_and_event-otel_semconv_1_44.json": {written: []string{""}},
		"adk-go__toolcall__no_content-otel_semconv_1_44.json": {refused: []string{
			"the model call was recorded without its messages, so there is nothing to replay; turn message content capture on where the agent runs: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true"}},
		"adk-go__toolcall__span_and_event-otel_semconv_1_44.json":            {written: []string{""}},
		"adk-go__toolcall__tool-error-span_and_event-otel_semconv_1_44.json": {written: []string{""}},
		// adk-python's digests say "<elided>" where content was not captured.
		"adk-python__inference-error-resource-exhausted-schema-v1.json": {refused: []string{"the model call was recorded without its messages"}},
		"adk-python__tool-error-valueerror-schema-v2.json":              {refused: []string{"the model call was recorded without its messages"}},
		"agent-prism__langfuse-3.json":                                  {refused: []string{"this is a Langfuse trace export, not OTLP"}},
		// smolagents: two planning calls import; the manager and the search
		// agent pass the model's answers on rewritten, which only a bridged
		// import (the agent itself) can replay.
		"agent-prism__smol_deep_research_agent.otlp.json": {written: []string{"-1", "-3"}, refused: []string{
			"the agent passed the model's answer of \"ChatCompletion\" (338d5ac2c68af598) on changed",
			"the agent passed the model's answer of \"ChatCompletion\" (aa539eb36c9027e2) on changed"}},
	}
	out := filepath.Join(t.TempDir(), "scenarios")
	var expected []string
	for _, f := range files {
		w, ok := want[filepath.Base(f)]
		if !ok {
			t.Errorf("%s: a corpus file this test does not know; add what it must come to", f)
			continue
		}
		_, stdout, stderr := runCmd(t, "import", "--out", out, f)
		for _, suffix := range w.written {
			name := traceStem(f) + suffix + ".yaml"
			expected = append(expected, name)
			if !strings.Contains(stdout, "imported  "+filepath.Join(out, name)) {
				t.Errorf("%s: %s not imported:\n%s%s", f, name, stdout, stderr)
			}
		}
		if got := strings.Count(stdout, "REFUSED"); got != len(w.refused) {
			t.Errorf("%s: %d refused, want %d:\n%s", f, got, len(w.refused), stdout)
		}
		for _, reason := range w.refused {
			if !strings.Contains(stdout, reason) {
				t.Errorf("%s: the refusal does not say %q:\n%s", f, reason, stdout)
			}
		}
	}
	got, _ := filepath.Glob(filepath.Join(out, "*.yaml"))
	var names []string
	for _, g := range got {
		if !strings.HasSuffix(g, ".golden.yaml") {
			names = append(names, filepath.Base(g))
		}
	}
	slices.Sort(expected)
	if !slices.Equal(names, expected) {
		t.Errorf("wrote %v, want %v", names, expected)
	}
	if len(names) == 0 {
		return
	}
	if code, stdout, stderr := runCmd(t, "lint", out); code != exitOK {
		t.Errorf("lint: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runCmd(t, "replay", out); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, names[0])); err != nil {
		t.Error(err)
	}
}
