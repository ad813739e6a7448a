package benchrow

import (
	"strings"
	"testing"
)

func TestPrintBridgeTargets(t *testing.T) {
	rows := map[string]Row{
		AgentRow:  {CPU: 100, Wall: 1},
		BridgeRow: {CPU: 150, Wall: 1},
		VCRRow:    {CPU: 400, Wall: 1},
		NativeRow: {CPU: 40, Wall: 1},
	}
	var b strings.Builder
	PrintBridgeTargets(&b, rows)
	for _, want := range []string{
		"from CPU time",
		"bridge ÷ native = 3.75×",
		"go-vcr ÷ bridge = 2.67×",
		"bridge − agent = 50.0 µs; go-vcr − agent = 300.0 µs",
		"(bridge − agent) ÷ native = 1.25×",
		"(go-vcr − agent) ÷ (bridge − agent) = 6.00×",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	delete(rows, BridgeRow)
	if PrintBridgeTargets(&b, rows); b.Len() != 0 {
		t.Errorf("without the bridge row it printed %q", b.String())
	}
}

func TestPrintFormatTargets(t *testing.T) {
	rows := map[string]Row{
		AgentRow:  {CPU: 100, Wall: 1},
		BridgeRow: {CPU: 200, Wall: 1},
		"g":       {CPU: 250, Wall: 1},
		"g alone": {CPU: 120, Wall: 1},
		"r":       {CPU: 300, Wall: 1},
	}
	formats := []FormatRows{{"Gemini", "g", "g alone"}, {"Responses", "r", "r alone"}, {"Bedrock", "b", "b alone"}}
	var b strings.Builder
	PrintFormatTargets(&b, rows, formats)
	want := "wire formats vs Chat Completions (issue 36), per turn, from CPU time:\n" +
		"  Gemini: bridged ÷ Chat Completions bridged = 1.25× (target ≤ 1.2×); agents alone 1.20×; bridge − agent 130.0 µs (Chat Completions 100.0 µs)\n" +
		"  Responses: bridged ÷ Chat Completions bridged = 1.50× (target ≤ 1.2×)\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	delete(rows, BridgeRow)
	if PrintFormatTargets(&b, rows, formats); b.Len() != 0 {
		t.Errorf("without the Chat Completions row it printed %q", b.String())
	}
}

func TestMediansTakeEachColumnsMedian(t *testing.T) {
	var tb Table
	tb.runs = map[string][]Row{"x": {{Name: "x", Wall: 3, CPU: 1}, {Name: "x", Wall: 1, CPU: 9}, {Name: "x", Wall: 2, CPU: 5}}}
	m, all := tb.Medians()
	if got := m["x"]; got.Wall != 2 || got.CPU != 5 || len(all) != 1 {
		t.Errorf("medians %+v, rows %d; want wall 2, CPU 5, one row", got, len(all))
	}
}
