package cost

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// OpenAI caches nothing of a prompt under 1024 tokens, then the first 1024
// and each further whole 128 (its prompt-caching guide).
func TestOpenAICacheableSteps(t *testing.T) {
	for _, tt := range []struct{ shared, want int }{
		{0, 0}, {900, 0}, {1023, 0}, {1024, 1024}, {1151, 1024}, {1152, 1152}, {1300, 1280}, {4000, 3968},
	} {
		if got := OpenAI.cacheable(tt.shared); got != tt.want {
			t.Errorf("OpenAI.cacheable(%d) = %d, want %d", tt.shared, got, tt.want)
		}
	}
	// Gemini's implicit cache has a minimum but no steps.
	for _, tt := range []struct{ shared, want int }{{1000, 0}, {1024, 1024}, {1300, 1300}} {
		if got := Gemini.cacheable(tt.shared); got != tt.want {
			t.Errorf("Gemini.cacheable(%d) = %d, want %d", tt.shared, got, tt.want)
		}
	}
}

// long is a system prompt of about n tokens (4 bytes each).
func long(n int) string {
	return "You follow the house style guide. " + strings.Repeat("Rule: keep it short. ", n*4/21)
}

// history is a conversation of a system prompt of about sys tokens and
// turns user/assistant pairs.
func history(sys string, turns int) []llm.Message {
	msgs := []llm.Message{llm.SystemMessage(sys), llm.UserMessage("Tidy the repository.")}
	for i := 0; i < turns; i++ {
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("Step %d done.", i)}, llm.UserMessage("go on"))
	}
	return msgs
}

func TestVendorRulesEstimates(t *testing.T) {
	tools := []llm.ToolDefinition{readFile, writeFile}
	big, small := long(3000), long(600)
	rewritten := history(big, 3)
	rewritten[4] = llm.Message{Role: llm.RoleAssistant, Content: "[summary of the first steps]"}
	tests := []struct {
		name  string
		rules Rules
		calls []Call
		check func(t *testing.T, run, generic Run)
	}{
		{
			name:  "openai: a short prompt is not cached, however stable",
			rules: OpenAI,
			calls: calls(req(tools, history(small, 1)...), req(tools, history(small, 2)...)),
			check: func(t *testing.T, run, generic Run) {
				if run.SharedTokens != 0 || generic.SharedTokens == 0 {
					t.Errorf("shared %d, want 0 under OpenAI's 1024-token minimum (and more than 0 generically)", run.SharedTokens)
				}
			},
		},
		{
			name:  "openai: a long stable prefix is cached in steps of 128",
			rules: OpenAI,
			calls: calls(req(tools, history(big, 1)...), req(tools, history(big, 2)...)),
			check: func(t *testing.T, run, generic Run) {
				s := run.Steps[1]
				if s.SharedTokens < 1024 || (s.SharedTokens-1024)%128 != 0 || s.SharedTokens > s.SharedBytes/4 || s.SharedBytes/4-s.SharedTokens >= 128 {
					t.Errorf("cached %d of a %d-token shared prefix, want it rounded down to 1024+128k", s.SharedTokens, s.SharedBytes/4)
				}
				if s.WriteTokens != 0 {
					t.Errorf("an automatic cache writes at no extra price; got %d write tokens", s.WriteTokens)
				}
			},
		},
		{
			name:  "gemini: the whole shared prefix past the minimum",
			rules: Gemini,
			calls: calls(req(tools, history(big, 1)...), req(tools, history(big, 2)...)),
			check: func(t *testing.T, run, generic Run) {
				if s := run.Steps[1]; s.SharedTokens != s.SharedBytes/4 {
					t.Errorf("cached %d, want the shared prefix's %d", s.SharedTokens, s.SharedBytes/4)
				}
			},
		},
		{
			name:  "anthropic: an appended turn reads all of the previous request",
			rules: Anthropic,
			calls: calls(req(tools, history(big, 1)...), req(tools, history(big, 2)...)),
			check: func(t *testing.T, run, generic Run) {
				s0, s1 := run.Steps[0], run.Steps[1]
				if s1.SharedTokens != s1.SharedBytes/4 {
					t.Errorf("read %d, want the previous request's %d", s1.SharedTokens, s1.SharedBytes/4)
				}
				if s0.WriteTokens != s0.TotalBytes/4 || s1.WriteTokens != s1.TotalBytes/4-s1.SharedTokens {
					t.Errorf("writes %d then %d, want the first request whole (%d), then what the second adds (%d)",
						s0.WriteTokens, s1.WriteTokens, s0.TotalBytes/4, s1.TotalBytes/4-s1.SharedTokens)
				}
			},
		},
		{
			name:  "anthropic: past the 20-block lookback only the system breakpoint is read",
			rules: Anthropic,
			calls: calls(req(tools, history(big, 1)...), req(tools, history(big, 13)...)),
			check: func(t *testing.T, run, generic Run) {
				head := tokensOf(t, Anthropic, req(tools, llm.SystemMessage(big)))
				if s := run.Steps[1]; s.SharedTokens != head {
					t.Errorf("read %d, want the tools and system prompt's %d: the previous end is 24 elements back", s.SharedTokens, head)
				}
			},
		},
		{
			name:  "anthropic: a rewritten message falls back to the system breakpoint",
			rules: Anthropic,
			calls: calls(req(tools, history(big, 3)...), req(tools, append(rewritten, llm.UserMessage("and?"))...)),
			check: func(t *testing.T, run, generic Run) {
				head := tokensOf(t, Anthropic, req(tools, llm.SystemMessage(big)))
				s := run.Steps[1]
				if s.SharedTokens != head || s.SharedBytes/4 <= head {
					t.Errorf("read %d of a %d-token shared prefix, want only the breakpoint after the system prompt (%d)", s.SharedTokens, s.SharedBytes/4, head)
				}
				if got := s.Breaker.String(); got != "messages[4] rewritten" {
					t.Errorf("breaker %s, want messages[4] rewritten", got)
				}
			},
		},
		{
			name:  "anthropic: a changed system prompt leaves the tools, but no breakpoint ends there",
			rules: Anthropic,
			calls: calls(req(tools, history(big, 1)...), req(tools, append([]llm.Message{llm.SystemMessage(big + " Today is Monday.")}, history(big, 2)[1:]...)...)),
			check: func(t *testing.T, run, generic Run) {
				s := run.Steps[1]
				if s.SharedBytes == 0 || s.SharedTokens != 0 {
					t.Errorf("shared %d bytes (the tools), read %d tokens; want the tools shared and nothing read", s.SharedBytes, s.SharedTokens)
				}
			},
		},
		{
			name:  "anthropic: a prefix under the model's minimum is neither read nor written",
			rules: Rules{Vendor: "anthropic", ToolsFirst: true, MinTokens: 4096, Breakpoints: true, Lookback: 20},
			calls: calls(req(tools, history(big, 1)...), req(tools, history(big, 2)...)),
			check: func(t *testing.T, run, generic Run) {
				if run.SharedTokens != 0 || run.WriteTokens != 0 {
					t.Errorf("read %d, wrote %d; want nothing under a 4096-token minimum", run.SharedTokens, run.WriteTokens)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := tt.rules.Analyze(tt.calls)
			if err != nil {
				t.Fatal(err)
			}
			if run.Rules != tt.rules {
				t.Errorf("run.Rules = %+v, want %+v", run.Rules, tt.rules)
			}
			for i, s := range run.Steps {
				if s.Recorded || s.SharedTokens > s.InputTokens {
					t.Errorf("request %d: %+v: want an estimate no larger than the input", i, s)
				}
			}
			generic, err := Generic.Analyze(tt.calls)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, run, generic)
		})
	}
}

// tokensOf is the estimated tokens of a request's whole encoding under r.
func tokensOf(t *testing.T, r Rules, q llm.Request) int {
	t.Helper()
	els, err := elements(&q, r)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range els {
		n += len(e.enc)
	}
	return n / 4
}

// Anthropic reads the tools before the system prompt, so a request that
// changes both breaks at the tools; the generic order breaks at the system
// prompt.
func TestRulesOrder(t *testing.T) {
	c := calls(
		req([]llm.ToolDefinition{readFile, writeFile}, sys(prompt), user("hi")),
		req([]llm.ToolDefinition{readFile, tool("write_file", "Write or create a file.")}, sys(prompt+" Be brief."), user("hi")),
	)
	for _, tt := range []struct {
		rules Rules
		want  string
	}{{Generic, "system[0] changed"}, {OpenAI, "system[0] changed"}, {Gemini, "system[0] changed"}, {Anthropic, "tools[1] changed"}, {Bedrock, "tools[1] changed"}} {
		run, err := tt.rules.Analyze(c)
		if err != nil {
			t.Fatal(err)
		}
		if b := run.Breakers(); len(b) != 1 || b[0].Breaker.String() != tt.want {
			t.Errorf("%s: breakers %v, want %s", tt.rules, b, tt.want)
		}
	}
	// A system message added where the previous request went on to its
	// tools is "added" in either order.
	added := calls(req([]llm.ToolDefinition{readFile}, sys(prompt), user("hi")), req([]llm.ToolDefinition{readFile}, sys(prompt), sys("Be brief."), user("hi")))
	for _, r := range []Rules{Generic, Anthropic} {
		run, err := r.Analyze(added)
		if err != nil {
			t.Fatal(err)
		}
		if b := run.Breakers(); len(b) != 1 || b[0].Breaker.String() != "system[1] added" {
			t.Errorf("%s: breakers %v, want system[1] added", r, b)
		}
	}
}

func TestVendorRulesNames(t *testing.T) {
	for _, name := range []string{"openai", "anthropic", "gemini", "bedrock"} {
		r, ok := VendorRules(name)
		if !ok || r.Vendor != name || r.String() != name || r.MinTokens == 0 {
			t.Errorf("VendorRules(%q) = %+v, %v", name, r, ok)
		}
	}
	if r, ok := VendorRules(""); !ok || r != Generic || r.String() != "generic" {
		t.Errorf(`VendorRules("") = %+v, %v; want Generic`, r, ok)
	}
	if _, ok := VendorRules("mistral"); ok {
		t.Error(`VendorRules("mistral") found rules`)
	}
	if _, err := (Rules{MinTokens: -1}).Analyze(nil); !errors.Is(err, ErrRules) {
		t.Errorf("negative minimum: err %v, want ErrRules", err)
	}
}

// marked is q with its cache breakpoints at marks (none when empty).
func marked(q llm.Request, marks ...llm.CacheMark) llm.Request {
	q.Cache = append([]llm.CacheMark{}, marks...)
	return q
}

// Where a request recorded its breakpoints, Anthropic's and Bedrock's
// rules read and write at those, not at the two assumed: a prefix ends
// only where one is marked, and one marked more than 20 blocks after the
// end of the previous request's is not read there.
func TestRecordedBreakpoints(t *testing.T) {
	tools := []llm.ToolDefinition{readFile, writeFile}
	big := long(3000)
	head := tokensOf(t, Anthropic, req(tools, llm.SystemMessage(big)))
	sys := llm.CacheMark{Index: 0} // the system prompt, after the tools
	last := func(q llm.Request) llm.CacheMark { return llm.CacheMark{Index: len(q.Messages) - 1} }
	first, second := req(tools, history(big, 1)...), req(tools, history(big, 2)...)
	for _, rules := range []Rules{Anthropic, Bedrock} {
		t.Run(rules.Vendor, func(t *testing.T) {
			run := func(cs ...Call) Run {
				t.Helper()
				r, err := rules.Analyze(cs)
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			assumed := run(calls(first, second)...)
			if !assumed.AssumedBreakpoints || assumed.Steps[1].SharedTokens <= head {
				t.Fatalf("no breakpoints recorded: %+v; want the two assumed, reading the whole first request", assumed.Steps[1])
			}
			// Marked on the last message too: the assumption, recorded.
			both := run(calls(marked(first, sys, last(first)), marked(second, sys, last(second)))...)
			if both.AssumedBreakpoints || both.Steps[1].SharedTokens != assumed.Steps[1].SharedTokens || both.WriteTokens != assumed.WriteTokens {
				t.Errorf("marks on the system prompt and the last message: read %d, wrote %d; want the assumption's %d and %d, not assumed",
					both.Steps[1].SharedTokens, both.WriteTokens, assumed.Steps[1].SharedTokens, assumed.WriteTokens)
			}
			// Only the system prompt: that prefix is read, nothing past it.
			onlySys := run(calls(marked(first, sys), marked(second, sys))...)
			if s := onlySys.Steps[1]; s.SharedTokens != head || s.WriteTokens != 0 {
				t.Errorf("a mark on the system prompt alone: read %d, wrote %d; want %d read, nothing written", s.SharedTokens, s.WriteTokens, head)
			}
			// None: nothing is cached.
			none := run(calls(marked(first), marked(second))...)
			if none.SharedTokens != 0 || none.WriteTokens != 0 {
				t.Errorf("no breakpoint: read %d, wrote %d; want nothing", none.SharedTokens, none.WriteTokens)
			}
			// A last-message mark 24 blocks after the previous end reads
			// nothing there: only the system prompt's prefix.
			far := req(tools, history(big, 13)...)
			lookback := run(calls(marked(first, sys, last(first)), marked(far, sys, last(far)))...)
			if s := lookback.Steps[1]; s.SharedTokens != head {
				t.Errorf("past the lookback: read %d, want the system prompt's %d", s.SharedTokens, head)
			}
			// A mark on a tool: the tools alone are below the minimum.
			tool := run(calls(marked(first, llm.CacheMark{Tools: true, Index: 1}), marked(second, llm.CacheMark{Tools: true, Index: 1}))...)
			if tool.SharedTokens != 0 {
				t.Errorf("a mark after the tools (under 1024 tokens): read %d, want nothing", tool.SharedTokens)
			}
		})
	}
}
