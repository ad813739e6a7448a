package scenario_test

import (
	"testing"
	"time"

	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/scenario"
)

// TestFaultsLatency: a fault's latency: reaches the fault the model is
// served with.
func TestFaultsLatency(t *testing.T) {
	s := parseBody(t, "faults:\n  - {call: 1, latency: 3s}\n")
	if len(s.Faults) != 1 || s.Faults[0].Latency != 3*time.Second {
		t.Errorf("faults = %+v; want call 1 with latency 3s", s.Faults)
	}
}

// TestFaultsArguments: arguments: truncate reaches the fault, for a call
// whose answer carries tool calls.
func TestFaultsArguments(t *testing.T) {
	s, err := scenario.Parse([]byte("format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape:\n  - response: {tool_calls: [{id: c1, name: echo, arguments: {a: 1}}]}\n  - response: {content: done}\nfaults:\n  - {call: 1, arguments: truncate}\n"), "s.yaml", "s")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Faults) != 1 || s.Faults[0].Arguments != faultspec.ArgumentsTruncate {
		t.Errorf("faults = %+v; want call 1 with arguments truncate", s.Faults)
	}
}

// TestFaultsDecoded: faults: keeps each entry's keys; a bad entry names its
// line.
func TestFaultsDecoded(t *testing.T) {
	s := parseBody(t, "faults:\n  - {call: 2, http: 429, retry_after: 1s}\n  - {call: 3, stream: cut, after_bytes: 10}\n")
	if len(s.Faults) != 2 || s.Faults[0].Call != 2 || s.Faults[0].HTTP != 429 || s.Faults[0].RetryAfter != time.Second || s.Faults[1].AfterBytes != 10 {
		t.Errorf("faults = %+v", s.Faults)
	}
	checkParseErrors(t, map[string]string{
		"faults: {call: 1, http: 500}\n":                                "s.yaml:4: faults: want a sequence",
		"faults:\n  - {call: 1, htp: 500}\n":                            `s.yaml:5: faults[0]: unknown key "htp"`,
		"faults:\n  - {call: 1, http: 500}\n  - {call: 1, http: 502}\n": "s.yaml:6: faults[1]: call 1 already has faults[0]",
	})
}
