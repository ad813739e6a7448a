package report

import (
	"path/filepath"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// hostile is model-controlled text that must render as text, never as markup.
const hostile = `<script>window.pwned=1;document.title="pwned"</script><img src=x onerror="window.pwned=2">`

// suiteReplay is the replay result of the fixture suite in
// testdata/suite.json (two scenarios: files/append passes, hostile/script
// fails both its golden and an expectation), as package report/fromharness
// builds it from real verdicts (its TestSuiteFixture writes and checks the
// file), restricted to shard (nil: all).
func suiteReplay(t testing.TB, shard *Shard) *Replay {
	t.Helper()
	all, err := ReadReplay(filepath.Join("testdata", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	var results []ScenarioResult
	for _, s := range all.Scenarios {
		if shard.Contains(s.Name) {
			results = append(results, s)
		}
	}
	return NewReplay(results, shard)
}

func llmUsage(in, out int) llm.Usage { return llm.Usage{InputTokens: in, OutputTokens: out} }
