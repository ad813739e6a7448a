package evalrun

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/llm"
)

// A bundled scenario whose tools change mid-run shows the breaker; one
// conversation that only appends shows none and a share that is not zero.
func TestCostBundledScenarios(t *testing.T) {
	code, out, errOut := runCmd(t, "cost", "../scenarios/availability/until-iteration.yaml", "../scenarios/conversations/notes-over-three-turns.yaml")
	if code != exitOK {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "cost  availability/until-iteration: 3 requests") || !strings.Contains(out, "      request 1: tools[0] added\n") {
		t.Errorf("until-iteration: want its third tool's arrival named as a breaker, got:\n%s", out)
	}
	m := regexp.MustCompile(`cost  conversations/notes-over-three-turns: \d+ requests, cacheable share (\d+)% \(\d+ of \d+ input tokens, estimated\)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no line for notes-over-three-turns, got:\n%s", out)
	}
	if share, _ := strconv.Atoi(m[1]); share < 50 {
		t.Errorf("notes-over-three-turns share %d%%, want over half: each request repeats the one before", share)
	}
	if notes := out[strings.Index(out, "conversations/notes"):strings.Index(out, "suite  ")]; strings.Contains(notes, "request ") {
		t.Errorf("notes-over-three-turns only appends, yet a breaker is listed:\n%s", out)
	}
}

func TestCostUsageErrors(t *testing.T) {
	if code, _, errOut := runCmd(t, "cost", "--run", "(", "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, "--run") {
		t.Errorf("bad --run: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "cost", "--run", "^nothing$", "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, "no scenario matches") {
		t.Errorf("no match: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "cost", "no/such/dir"); code != exitUsage || !strings.Contains(errOut, "no/such/dir") {
		t.Errorf("missing path: exit %d, stderr %q", code, errOut)
	}
}

// --model prices a scenario whose requests name none; a file of one's own
// adds a row, here one whose cache keeps any prefix, so the cost with
// caching follows from the JSON's token counts and the row's prices.
func TestCostPricesAndJSON(t *testing.T) {
	const notes = "../scenarios/conversations/notes-over-three-turns.yaml"
	code, out, errOut := runCmd(t, "cost", "--model", "gpt-4.1-mini", notes)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	// A few hundred tokens are below OpenAI's 1024-token minimum: nothing
	// is cached, and caching saves nothing.
	m := regexp.MustCompile(`cacheable share 0% \(0 of \d+ input tokens, estimated\)\n      gpt-4.1-mini at openai's cache and prices of \d{4}-\d\d-\d\d: (\$[0-9.]+) with caching, (\$[0-9.]+) without\n`).FindStringSubmatch(out)
	if m == nil || m[1] != m[2] {
		t.Fatalf("want no share under OpenAI's minimum and equal costs, got:\n%s", out)
	}
	own := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(own, []byte(`prices:
  - provider: gemini
    model: house-flash
    input: 1
    cached_input: 0.1
    cache_write: 1
    output: 4
    min_cache_tokens: 0
    date: 2026-12-01
    source: https://example.com/house-prices
`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, "cost", "--prices", own, "--model", "house-flash", "--json", "-", notes, "../scenarios/availability/until-iteration.yaml")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	if !strings.Contains(errOut, "house-flash at gemini's cache") || !strings.Contains(errOut, "suite  2 scenarios") {
		t.Errorf("with --json -, the text goes to standard error; got:\n%s", errOut)
	}
	var doc struct {
		Format    string `json:"format"`
		Scenarios []struct {
			Name             string
			Requests         int
			InputTokens      int     `json:"input_tokens"`
			CachedTokens     int     `json:"cached_tokens"`
			CacheWriteTokens int     `json:"cache_write_tokens"`
			OutputTokens     int     `json:"output_tokens"`
			Share            float64 `json:"cacheable_share"`
			Estimated        bool
			Model, Rules     string
			Breakers         []struct {
				Request           int
				Place, Part, Kind string
				Index             int
			}
			Price *struct {
				Model, Date, Source string
				Input               float64
				CachedInput         float64 `json:"cached_input"`
				Output              float64
			}
			Cost *struct {
				WithCache    float64 `json:"with_cache"`
				WithoutCache float64 `json:"without_cache"`
			} `json:"cost_usd"`
		}
		Suite struct {
			Scenarios, Requests, Priced int
			InputTokens                 int `json:"input_tokens"`
			CachedTokens                int `json:"cached_tokens"`
			Cost                        struct {
				WithCache    float64 `json:"with_cache"`
				WithoutCache float64 `json:"without_cache"`
			} `json:"cost_usd"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
	}
	if doc.Format != "tapeloop-cost/v1" || len(doc.Scenarios) != 2 || doc.Suite.Scenarios != 2 || doc.Suite.Priced != 2 {
		t.Fatalf("document %+v", doc)
	}
	var sumIn, sumCached int
	var sumWith float64
	for _, s := range doc.Scenarios {
		if s.Rules != "gemini" || s.Model != "house-flash" || s.Price == nil || s.Price.Source != "https://example.com/house-prices" || s.Cost == nil || !s.Estimated {
			t.Fatalf("%s: %+v", s.Name, s)
		}
		want := (float64(s.InputTokens-s.CachedTokens)*1 + float64(s.CachedTokens)*0.1 + float64(s.OutputTokens)*4) / 1e6
		if math.Abs(s.Cost.WithCache-want) > 1e-12 || s.CacheWriteTokens != 0 {
			t.Errorf("%s: with cache %v, want %v from its tokens", s.Name, s.Cost.WithCache, want)
		}
		if s.CachedTokens == 0 || s.Cost.WithCache >= s.Cost.WithoutCache || s.OutputTokens == 0 {
			t.Errorf("%s: %d cached, %d output; costs %v and %v: want a saving", s.Name, s.CachedTokens, s.OutputTokens, s.Cost.WithCache, s.Cost.WithoutCache)
		}
		sumIn, sumCached, sumWith = sumIn+s.InputTokens, sumCached+s.CachedTokens, sumWith+s.Cost.WithCache
	}
	if until := doc.Scenarios[1]; len(until.Breakers) != 1 || until.Breakers[0].Place != "tools[0] added" || until.Breakers[0].Kind != "added" {
		t.Errorf("until-iteration breakers %+v", until.Breakers)
	}
	if doc.Suite.InputTokens != sumIn || doc.Suite.CachedTokens != sumCached || math.Abs(doc.Suite.Cost.WithCache-sumWith) > 1e-12 {
		t.Errorf("suite %+v, want the sums %d, %d, %v", doc.Suite, sumIn, sumCached, sumWith)
	}
}

func TestCostPriceErrors(t *testing.T) {
	if code, _, errOut := runCmd(t, "cost", "--model", "no-such-model", "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, `no price for "no-such-model"`) {
		t.Errorf("unknown --model: exit %d, stderr %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "prices.yaml")
	if err := os.WriteFile(bad, []byte("prices:\n  - provider: openai\n    model: m\n    input: cheap\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCmd(t, "cost", "--prices", bad, "../scenarios/availability"); code != exitUsage || !strings.Contains(errOut, bad+":4: prices[0].input: want a price") {
		t.Errorf("bad --prices: exit %d, stderr %q", code, errOut)
	}
}

// The model a bridged agent's requests name picks the row and its vendor's
// rules; a model without a row is said, and read generically.
func TestCostOfRequestModel(t *testing.T) {
	named := func(model string) []cost.Call {
		r := llm.Request{Messages: []llm.Message{llm.UserMessage("hi")}, Params: map[string]json.RawMessage{"model": json.RawMessage(strconv.Quote(model))}}
		return []cost.Call{{Request: r}}
	}
	for _, tt := range []struct{ model, row, rules string }{
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "anthropic"},
		{"us.anthropic.claude-haiku-4-5-20251001-v1:0", "anthropic.claude-haiku-4-5", "bedrock"},
		{"gemini-2.5-flash", "gemini-2.5-flash", "gemini"},
		{"house-model", "", "generic"},
	} {
		m, err := costOf(named(tt.model), cost.BundledPrices(), "")
		if err != nil {
			t.Fatal(err)
		}
		if m.model != tt.model || m.run.Rules.String() != tt.rules || (m.price == nil) != (tt.row == "") || m.price != nil && m.price.Model != tt.row {
			t.Errorf("%s: model %q, rules %s, price %+v; want row %q, rules %s", tt.model, m.model, m.run.Rules, m.price, tt.row, tt.rules)
		}
	}
}

// Every `$ evalrun cost` block of docs/cost.md prints what the command
// prints, run from the repository's root.
func TestCostDocOutputs(t *testing.T) {
	doc, err := os.ReadFile("../docs/cost.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```\n\\$ evalrun (cost [^\n]*)\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d evalrun cost blocks in docs/cost.md", len(blocks))
	}
	for _, b := range blocks {
		var args []string
		for i, a := range regexp.MustCompile(`'[^']*'|\S+`).FindAllString(b[1], -1) {
			a = strings.Trim(a, "'")
			if _, err := os.Stat(filepath.Join("..", a)); err == nil && i > 0 {
				a = filepath.Join("..", a)
			}
			args = append(args, a)
		}
		code, out, errOut := runCmd(t, args...)
		if code != exitOK || out != b[2] {
			t.Errorf("evalrun %s: exit %d, stderr %q; stdout:\n%s\nthe doc shows:\n%s", b[1], code, errOut, out, b[2])
		}
	}
}

// A replay fails a scenario whose expect.cache share does not hold, naming
// the place the prefix broke, and passes once the share asked is met.
func TestReplayExpectCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scenarios", "availability")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"until-iteration.yaml", "until-iteration.golden.yaml"} {
		b, err := os.ReadFile("../scenarios/availability/" + f)
		if err != nil {
			t.Fatal(err)
		}
		if f == "until-iteration.yaml" {
			b = append(b, "  cache: {min_cached_share: 0.5}\n"...)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := runCmd(t, "replay", dir)
	if code != exitFailed || !strings.Contains(out, "until-iteration.yaml:38: expect.cache: expected a cacheable share of at least 50%, found 36.6%") || !strings.Contains(out, "the prefix broke at request 1: tools[0] added") {
		t.Errorf("exit %d, stdout:\n%s", code, out)
	}
	path := filepath.Join(dir, "until-iteration.yaml")
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "0.5}", "0.3}", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := runCmd(t, "replay", dir); code != exitOK {
		t.Errorf("min 30%%: exit %d, stdout:\n%s", code, out)
	}
}

// A vendor that reported its cache read nothing is told apart from usage
// that says nothing of the cache: the line and the JSON say which.
func TestCostReportedZeroOrEstimated(t *testing.T) {
	first := llm.Request{Messages: []llm.Message{llm.SystemMessage("File what the user says."), llm.UserMessage("a receipt")}}
	second := first
	second.Messages = append(append([]llm.Message(nil), first.Messages...), llm.AssistantMessage("Filed."), llm.UserMessage("another"))
	usage := func(reported bool) llm.Usage {
		return llm.Usage{InputTokens: 40, OutputTokens: 3, CacheReported: reported}
	}
	for _, tt := range []struct {
		name       string
		calls      []cost.Call
		line, json string
	}{
		{"reported", []cost.Call{{Request: first, Usage: usage(true)}, {Request: second, Usage: usage(true)}},
			"(0 of 80 input tokens, recorded: 0 cached, reported by the vendor)", "reported"},
		{"not reported", []cost.Call{{Request: first, Usage: usage(false)}, {Request: second, Usage: usage(false)}},
			"input tokens, recorded where the tape holds usage, else estimated)", "estimated"},
		{"one reported", []cost.Call{{Request: first, Usage: usage(true)}, {Request: second, Usage: usage(false)}},
			"input tokens, recorded where the tape holds usage, else estimated)", "mixed"},
		{"none", []cost.Call{{Request: first}, {Request: second}}, "input tokens, estimated)", "estimated"},
	} {
		m, err := costOf(tt.calls, cost.BundledPrices(), "")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		m.print(&env{stdout: &out}, "s")
		if !strings.Contains(out.String(), tt.line) {
			t.Errorf("%s: printed %q, want it to say %q", tt.name, out.String(), tt.line)
		}
		doc := &costDocument{Format: costFormat}
		doc.add("s", "s.yaml", m, nil)
		var js bytes.Buffer
		if err := doc.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if want := `"cached_source": "` + tt.json + `"`; !strings.Contains(js.String(), want) {
			t.Errorf("%s: JSON %s\nwant %s", tt.name, js.String(), want)
		}
	}
}

// Anthropic's rules read the breakpoints a request recorded; where one
// recorded none the two assumed are said, in the line and the JSON.
func TestCostBreakpointsRecordedOrAssumed(t *testing.T) {
	model := map[string]json.RawMessage{"model": json.RawMessage(`"claude-sonnet-4-5"`)}
	for _, tt := range []struct {
		name   string
		cache  []llm.CacheMark
		said   bool
		source string
	}{
		{"recorded", []llm.CacheMark{{Index: 0}}, false, "recorded"},
		{"recorded none", []llm.CacheMark{}, false, "recorded"},
		{"not recorded", nil, true, "assumed"},
	} {
		r := llm.Request{Messages: []llm.Message{llm.SystemMessage("Rules."), llm.UserMessage("hi")}, Params: model, Cache: tt.cache}
		m, err := costOf([]cost.Call{{Request: r}, {Request: r}}, cost.BundledPrices(), "")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		m.print(&env{stdout: &out}, "s")
		if said := strings.Contains(out.String(), "breakpoints not recorded: assumed"); said != tt.said {
			t.Errorf("%s: printed %q; want the assumption said: %v", tt.name, out.String(), tt.said)
		}
		doc := &costDocument{Format: costFormat}
		doc.add("s", "s.yaml", m, nil)
		var js bytes.Buffer
		if err := doc.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if want := `"breakpoints": "` + tt.source + `"`; !strings.Contains(js.String(), want) {
			t.Errorf("%s: JSON lacks %s", tt.name, want)
		}
	}
}

// TestCostJSONNamesEachScenarioAndRefusesAnUnwritableFile: cost --json
// names each scenario measured, with no error; a --json file that cannot
// be written is a usage error naming the flag.
func TestCostJSONNamesEachScenarioAndRefusesAnUnwritableFile(t *testing.T) {
	const notes = "../scenarios/conversations/notes-over-three-turns.yaml"
	code, out, errOut := runCmd(t, "cost", "--model", "gpt-4.1-mini", "--json", "-", notes)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	var doc struct {
		Scenarios []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not the JSON document: %v\n%s", err, out)
	}
	if len(doc.Scenarios) != 1 || doc.Scenarios[0]["name"] != "conversations/notes-over-three-turns" || doc.Scenarios[0]["error"] != "" {
		t.Errorf("scenarios %v; want conversations/notes-over-three-turns by name, with no error", doc.Scenarios)
	}
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCmd(t, "cost", "--model", "gpt-4.1-mini", "--json", filepath.Join(notADir, "cost.json"), notes)
	if code != exitUsage || !strings.Contains(errOut, "evalrun cost: --json: ") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming --json", code, errOut)
	}
}

// TestCostNativeOwnModel: a native scenario naming its own model
// (setup.loop.request.model) is priced as that model, without its
// provider, as --model would price it.
func TestCostNativeOwnModel(t *testing.T) {
	const own = `format: tapeloop/v1
setup:
  loop:
    request: {model: openai/gpt-4.1-mini}
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello."}
expect:
  termination: final_text
`
	dir := newScenarios(t, map[string]string{"n/own.yaml": own})
	code, out, errOut := runCmd(t, "cost", filepath.Join(dir, "n", "own.yaml"))
	if code != exitOK || !strings.Contains(out, "gpt-4.1-mini at openai's cache and prices of") {
		t.Errorf("cost of a scenario naming openai/gpt-4.1-mini: exit %d, want it priced as gpt-4.1-mini\n%s%s", code, out, errOut)
	}
}
