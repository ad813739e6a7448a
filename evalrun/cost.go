package evalrun

import (
	"context"
	"fmt"
	"regexp"
	"sync"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
)

func init() {
	register(&command{name: "cost", summary: "replay scenarios and report how much of each request a prompt cache could reuse", run: runCost})
}

// costDoc is cost's --help text.
const costDoc = `Replays each scenario from its tape (no model is called, no golden is written)
and compares every model request with the one before it in the order a provider's
prompt cache reads it: system prompt, tools, then messages. Prints per scenario the
cacheable share of input tokens and each cache breaker with its place, as
"request 2: system[0] changed". Token counts are the tape's recorded cached tokens
where it holds them, else an estimate of one token per four bytes (said as such).
See docs/cost.md.`

func runCost(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "cost", "evalrun cost [flags] [scenario files or folders (default: scenarios)]", costDoc)
	runRE := fs.String("run", "", "report only scenarios whose name matches this regular expression")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	var re *regexp.Regexp
	if *runRE != "" {
		var err error
		if re, err = regexp.Compile(*runRE); err != nil {
			fmt.Fprintf(e.stderr, "evalrun cost: --run: %v\n", err)
			return exitUsage
		}
	}
	targets, code := discover(e, "cost", args)
	if code != exitOK {
		return code
	}
	result, matched := exitOK, 0
	for _, t := range targets {
		s, skip, err := t.load(e, "cost")
		if skip {
			continue
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun cost: %v\n", err)
			result = exitUsage
			continue
		}
		if re != nil && !re.MatchString(s.Name) {
			continue
		}
		matched++
		var col callCollector
		if _, err := e.run(ctx, s, &harness.RunOptions{Tools: e.tools, Observer: col.observe}); err != nil {
			fmt.Fprintf(e.stdout, "FAIL  %s: the replay did not run: %v\n", s.Name, err)
			result = max(result, exitFailed)
			continue
		}
		run, err := cost.Analyze(col.calls())
		if err != nil {
			fmt.Fprintf(e.stdout, "FAIL  %s: %v\n", s.Name, err)
			result = max(result, exitFailed)
			continue
		}
		printCost(e, s.Name, len(col.reqs), run)
	}
	if matched == 0 && result == exitOK {
		fmt.Fprintln(e.stderr, "evalrun cost: no scenario matches")
		return exitUsage
	}
	return result
}

// printCost prints one scenario's share and breakers.
func printCost(e *env, name string, requests int, run cost.Run) {
	how := "estimated"
	for _, s := range run.Steps {
		if s.Recorded || s.InputRecorded {
			how = "recorded where the tape holds usage, else estimated"
			break
		}
	}
	fmt.Fprintf(e.stdout, "cost  %s: %d requests, cacheable share %.0f%% (%d of %d input tokens, %s)\n",
		name, requests, 100*run.Share(), run.SharedTokens, run.InputTokens, how)
	for _, b := range run.Breakers() {
		fmt.Fprintf(e.stdout, "      request %d: %s\n", b.Request, b.Breaker)
	}
}

// callCollector keeps a run's model requests and the usage of their
// responses, in the order the loop reported them.
type callCollector struct {
	mu    sync.Mutex
	reqs  []llm.Request
	usage []llm.Usage
}

func (c *callCollector) observe(ev agent.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ev.Kind == agent.EventModelRequest && ev.Request != nil:
		c.reqs = append(c.reqs, *ev.Request)
	case ev.Kind == agent.EventModelResponse && ev.Response != nil:
		c.usage = append(c.usage, ev.Response.Usage)
	}
}

// calls pairs the n-th request with the n-th response's usage; a request
// without a response has none.
func (c *callCollector) calls() []cost.Call {
	out := make([]cost.Call, len(c.reqs))
	for i, r := range c.reqs {
		out[i].Request = r
		if i < len(c.usage) {
			out[i].Usage = c.usage[i]
		}
	}
	return out
}
