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

// FormatRows names one wire format's rows: its agent replayed through the
// bridge (Bridged) and the same agent alone against canned answer bytes
// (Alone; empty when there is none).
type FormatRows struct {
	// Format names the wire format in the printed lines.
	Format string
	// Bridged and Alone are the rows' names.
	Bridged, Alone string
}

// PrintFormatTargets writes the wire formats' target (issue 36) for each of
// formats whose bridged row rows holds: that row per turn ÷ BridgeRow's
// (the Chat Completions agent's), target ≤ 1.2×. When rows also holds the
// format's agent-alone row and AgentRow, it adds the agents alone's ratio
// (what the vendor SDKs cost apart from the bridge) and what the bridge
// adds to each agent (bridged − alone). It writes nothing without
// BridgeRow. Ratios are of the rows' medians, as the table's: compare rows
// of one run.
func PrintFormatTargets(w io.Writer, rows map[string]Row, formats []FormatRows) {
	chat, ok := rows[BridgeRow]
	if !ok {
		return
	}
	agent, aok := rows[AgentRow]
	header := false
	for _, f := range formats {
		r, ok := rows[f.Bridged]
		if !ok {
			continue
		}
		if !header {
			unit := "CPU time"
			if chat.CPU == 0 {
				unit = "wall time"
			}
			fmt.Fprintf(w, "wire formats vs Chat Completions (issue 36), per turn, from %s:\n", unit)
			header = true
		}
		fmt.Fprintf(w, "  %s: bridged ÷ Chat Completions bridged = %.2f× (target ≤ 1.2×)", f.Format, r.PerTurn()/chat.PerTurn())
		if alone, ok := rows[f.Alone]; ok && aok {
			fmt.Fprintf(w, "; agents alone %.2f×; bridge − agent %.1f µs (Chat Completions %.1f µs)",
				alone.PerTurn()/agent.PerTurn(), r.PerTurn()-alone.PerTurn(), chat.PerTurn()-agent.PerTurn())
		}
		fmt.Fprintln(w)
	}
}
