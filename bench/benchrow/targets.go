package benchrow

import (
	"fmt"
	"io"
	"strings"
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

// FormatRows names one wire format's rows, each empty when there is
// none: its vendor SDK agent replayed through the bridge (Bridged), the
// same agent alone against canned answer bytes (Alone), and an agent with
// no SDK posting the request bytes the SDK agent sent, replayed through
// the bridge (Raw: the bridge's own cost for the format).
type FormatRows struct {
	// Format names the wire format in the printed lines.
	Format string
	// Bridged, Alone and Raw are the rows' names.
	Bridged, Alone, Raw string
}

// PrintFormatTargets writes the wire formats' target (issue 36): for each
// of formats, its rows per turn ÷ base's (the Chat Completions rows),
// target ≤ 1.2×. The target is on the raw rows, what tapeloop costs per
// format whatever SDK an agent uses; the SDK rows are printed beside them
// for context: bridged ÷ bridged, and when both agent-alone rows are
// there, the agents alone's ratio (what the vendor SDKs cost apart from
// the bridge) and what the bridge adds to each agent (bridged − alone).
// A ratio is printed only when rows holds both of its rows, and nothing
// when it holds none. Ratios are of the rows' medians, as the table's:
// compare rows of one run.
func PrintFormatTargets(w io.Writer, rows map[string]Row, base FormatRows, formats []FormatRows) {
	header := false
	for _, f := range formats {
		raw, baseRaw, rok := pair(rows, f.Raw, base.Raw)
		bridged, baseBridged, bok := pair(rows, f.Bridged, base.Bridged)
		if !rok && !bok {
			continue
		}
		if !header {
			unit := "CPU time"
			if (rok && baseRaw.CPU == 0) || (!rok && baseBridged.CPU == 0) {
				unit = "wall time"
			}
			fmt.Fprintf(w, "wire formats vs %s (issue 36), per turn, from %s; the target is on the raw rows (no SDK: the bridge's own cost):\n", base.Format, unit)
			header = true
		}
		var parts []string
		if rok {
			parts = append(parts, fmt.Sprintf("raw ÷ %s raw = %.2f× (target ≤ 1.2×), allocations %.2f×",
				base.Format, raw.PerTurn()/baseRaw.PerTurn(), raw.Allocs/baseRaw.Allocs))
		}
		if bok {
			parts = append(parts, fmt.Sprintf("SDK bridged ÷ %s SDK bridged = %.2f×", base.Format, bridged.PerTurn()/baseBridged.PerTurn()))
			if alone, baseAlone, ok := pair(rows, f.Alone, base.Alone); ok {
				parts = append(parts, fmt.Sprintf("agents alone %.2f×; bridge − agent %.1f µs (%s %.1f µs)",
					alone.PerTurn()/baseAlone.PerTurn(), bridged.PerTurn()-alone.PerTurn(), base.Format, baseBridged.PerTurn()-baseAlone.PerTurn()))
			}
		}
		fmt.Fprintf(w, "  %s: %s\n", f.Format, strings.Join(parts, "; "))
	}
}

// pair returns rows' rows named a and b, and whether it holds both.
func pair(rows map[string]Row, a, b string) (Row, Row, bool) {
	ra, aok := rows[a]
	rb, bok := rows[b]
	return ra, rb, aok && bok && a != "" && b != ""
}
