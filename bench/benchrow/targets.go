package benchrow

import (
	"fmt"
	"io"
)

// The row names the bridge's speed targets are stated in, shared by package
// bench and module bench/vcr so that both tables name them alike.
const (
	// AgentRow is the agent alone: benchagent against canned answer bytes,
	// no harness. It is inside both the bridge and go-vcr rows.
	AgentRow = "agent alone: openai-go agent against canned answer bytes (no harness)"
	// BridgeRow is the agent replayed through bridge.Runner.
	BridgeRow = "bridge: openai-go agent replayed through bridge.Runner"
	// VCRRow is the agent replayed by go-vcr from a cassette.
	VCRRow = "go-vcr: openai-go agent replayed from a cassette"
	// NativeRow is the same workload as a native scenario, harness.Verify.
	NativeRow = "tapeloop harness.Verify"
)

// PrintBridgeTargets writes the bridge's speed targets (issue 24) as far as
// rows holds their rows, each two ways. Literal: bridge ÷ native per turn
// (target ≤ 2×) and go-vcr ÷ bridge (target ≥ 4×), the agent's own work
// inside both the bridge and go-vcr rows. Overhead: a harness's overhead is
// its row minus the agent alone; bridge overhead ÷ native (target ≤ 2×) and
// go-vcr overhead ÷ bridge overhead (target ≥ 4×). Ratios use CPU time
// where known (Row.PerTurn).
func PrintBridgeTargets(w io.Writer, rows map[string]Row) {
	agent, aok := rows[AgentRow]
	bridge, bok := rows[BridgeRow]
	vcr, vok := rows[VCRRow]
	native, nok := rows[NativeRow]
	if !bok {
		return
	}
	unit := "CPU time"
	if bridge.CPU == 0 {
		unit = "wall time"
	}
	fmt.Fprintf(w, "bridge speed targets (issue 24), per turn, from %s:\n", unit)
	if nok {
		fmt.Fprintf(w, "  literal:  bridge ÷ native = %.2f× (target ≤ 2×)\n", bridge.PerTurn()/native.PerTurn())
	}
	if vok {
		fmt.Fprintf(w, "  literal:  go-vcr ÷ bridge = %.2f× (target ≥ 4×)\n", vcr.PerTurn()/bridge.PerTurn())
	}
	if !aok {
		return
	}
	over := bridge.PerTurn() - agent.PerTurn()
	fmt.Fprintf(w, "  overhead: agent alone %.1f µs; bridge − agent = %.1f µs", agent.PerTurn(), over)
	if vok {
		fmt.Fprintf(w, "; go-vcr − agent = %.1f µs", vcr.PerTurn()-agent.PerTurn())
	}
	fmt.Fprintln(w)
	if nok {
		fmt.Fprintf(w, "  overhead: (bridge − agent) ÷ native = %.2f× (target ≤ 2×)\n", over/native.PerTurn())
	}
	if vok {
		fmt.Fprintf(w, "  overhead: (go-vcr − agent) ÷ (bridge − agent) = %.2f× (target ≥ 4×)\n", (vcr.PerTurn()-agent.PerTurn())/over)
	}
}
