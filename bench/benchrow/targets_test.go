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
		"c raw":   {CPU: 80, Wall: 1, Allocs: 1000},
		"g":       {CPU: 250, Wall: 1},
		"g alone": {CPU: 120, Wall: 1},
		"g raw":   {CPU: 92, Wall: 1, Allocs: 1100},
		"r":       {CPU: 300, Wall: 1},
		"m raw":   {CPU: 100, Wall: 1, Allocs: 900},
	}
	base := FormatRows{"Chat", BridgeRow, AgentRow, "c raw"}
	formats := []FormatRows{{"Gemini", "g", "g alone", "g raw"}, {"Responses", "r", "r alone", "r raw"},
		{"Messages", "m", "m alone", "m raw"}, {"Bedrock", "b", "b alone", "b raw"}}
	var b strings.Builder
	PrintFormatTargets(&b, rows, base, formats)
	want := "wire formats vs Chat (issue 36), per turn, from CPU time; the target is on the raw rows (no SDK: the bridge's own cost):\n" +
		"  Gemini: raw ÷ Chat raw = 1.15× (target ≤ 1.2×), allocations 1.10×; SDK bridged ÷ Chat SDK bridged = 1.25×; agents alone 1.20×; bridge − agent 130.0 µs (Chat 100.0 µs)\n" +
		"  Responses: SDK bridged ÷ Chat SDK bridged = 1.50×\n" +
		"  Messages: raw ÷ Chat raw = 1.25× (target ≤ 1.2×), allocations 0.90×\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	delete(rows, BridgeRow)
	delete(rows, "c raw")
	if PrintFormatTargets(&b, rows, base, formats); b.Len() != 0 {
		t.Errorf("without the Chat Completions rows it printed %q", b.String())
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
