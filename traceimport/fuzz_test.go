package traceimport

import (
	"bytes"
	"testing"
)

// FuzzImport feeds arbitrary bytes through Read, Runs and Scenario: each
// must return or refuse, never panic or hang.
func FuzzImport(f *testing.F) {
	t := &testing.T{}
	f.Add([]byte(otlp(t, oiSpans()...)))
	f.Add([]byte(otlp(t, gaSpans(func(turn int) (kv, []tevent) {
		return kv{"gen_ai.system_instructions", wxSystemParts, "gen_ai.input.messages", wxInput(turn, "response"), "gen_ai.output.messages", wxOutput(turn)}, nil
	})...)))
	f.Add([]byte(`{"root_span":{"name":"generate_content m","attributes":{"gen_ai.operation.name":"generate_content","gen_ai.input.messages":[{"role":"user","parts":[{"type":"text","content":"hi"}]}],"gen_ai.output.messages":[{"role":"assistant","parts":[{"type":"text","content":"ho"}]}]},"status":"UNSET","children":[]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		spans, err := Read(bytes.NewReader(data), "fuzz.json")
		if err != nil {
			return
		}
		runs, err := Runs(spans, nil)
		if err != nil {
			return
		}
		for _, r := range runs {
			_, _ = Scenario(r, nil)
			_, _ = Scenario(r, &ScenarioOptions{AgentGo: "a"})
		}
	})
}
