package cost

import "fmt"

// Rules are how one vendor's prompt cache reads a run's requests: the order
// in which it reads a request's sections, the smallest prefix it keeps, the
// steps a kept prefix grows in, and whether it keeps only prefixes that end
// at a breakpoint the request marks. The zero Rules is Generic.
type Rules struct {
	// Vendor names the rules, as the price table and --vendor spell it:
	// "openai", "anthropic", "gemini", "bedrock"; "" for Generic.
	Vendor string
	// ToolsFirst says the cache reads the tools before the system prompt
	// (Anthropic's order: tools, system, messages); false reads the system
	// prompt, the tools, then the messages.
	ToolsFirst bool
	// MinTokens is the smallest prefix the cache keeps, in tokens: a shared
	// prefix shorter than that is not cached at all. Zero keeps any.
	MinTokens int
	// Step is the increment a cached prefix grows in past MinTokens (OpenAI
	// caches the first 1024 tokens, then in steps of 128): the cached part
	// of a shared prefix is rounded down to MinTokens + k*Step. Zero counts
	// every token.
	Step int
	// Breakpoints says the cache keeps only prefixes that end at a
	// breakpoint the request marks (Anthropic's cache_control, Bedrock's
	// cachePoint), and reads one only where a later request marks a
	// breakpoint at most Lookback elements after its end. Analyze reads
	// each request's own (llm.Request.Cache); for a request that records
	// none it assumes the two an agent is advised to set: one after the
	// system prompt (and so after the tools, read before it), and one on
	// the request's last message (Run.AssumedBreakpoints). False is an
	// automatic prefix cache (OpenAI, Gemini), which keeps every request's
	// prefix.
	Breakpoints bool
	// Lookback is how many elements before a breakpoint the cache looks for
	// a prefix it keeps (Anthropic: 20 blocks); zero looks back to the
	// start. Used only with Breakpoints.
	Lookback int
}

// The rules of each vendor's cache, from its public documentation. A price
// table row's min_cache_tokens replaces MinTokens for its model (ForModel).
var (
	// Generic compares whole elements in the order system, tools, messages,
	// with no minimum: the prefix stability of the requests, whatever
	// provider serves them.
	Generic = Rules{}
	// OpenAI is the automatic prefix cache of Chat Completions and the
	// Responses API: prompts of 1024 tokens or more, cached in steps of 128
	// tokens past the first 1024.
	OpenAI = Rules{Vendor: "openai", MinTokens: 1024, Step: 128}
	// Anthropic is the Messages API's cache: explicit cache_control
	// breakpoints (at most four a request), read in the order tools,
	// system, messages, with a lookback of 20 blocks from each breakpoint.
	// The minimum cacheable length depends on the model (1024 tokens for
	// the Sonnet models, 4096 for Haiku 4.5 and Opus 4.5).
	Anthropic = Rules{Vendor: "anthropic", ToolsFirst: true, MinTokens: 1024, Breakpoints: true, Lookback: 20}
	// Gemini is the Gemini API's implicit cache, on by default for Gemini
	// 2.5 models and later: a shared prefix of the model's minimum (1024 to
	// 4096 tokens) or more.
	Gemini = Rules{Vendor: "gemini", MinTokens: 1024}
	// Bedrock is Converse's cache: cachePoint blocks after the tools, the
	// system prompt or a message, read like Anthropic's for Claude models;
	// the minimum per checkpoint depends on the model.
	Bedrock = Rules{Vendor: "bedrock", ToolsFirst: true, MinTokens: 1024, Breakpoints: true, Lookback: 20}
)

// Vendors lists the rules of each vendor, by Vendor.
var Vendors = []Rules{OpenAI, Anthropic, Gemini, Bedrock}

// VendorRules returns the rules named vendor ("openai", "anthropic",
// "gemini", "bedrock"); "" returns Generic. False for another name.
func VendorRules(vendor string) (Rules, bool) {
	if vendor == "" {
		return Generic, true
	}
	for _, r := range Vendors {
		if r.Vendor == vendor {
			return r, true
		}
	}
	return Rules{}, false
}

// String names the rules for a report line: "openai" or "generic".
func (r Rules) String() string {
	if r.Vendor == "" {
		return "generic"
	}
	return r.Vendor
}

// rank is a section's place in the order the cache reads it.
func (r Rules) rank(part string) int {
	switch part {
	case "system":
		if r.ToolsFirst {
			return 1
		}
		return 0
	case "tools":
		if r.ToolsFirst {
			return 0
		}
		return 1
	}
	return 2
}

// cacheable is the part of a shared prefix of shared tokens an automatic
// cache keeps.
func (r Rules) cacheable(shared int) int {
	if shared < r.MinTokens {
		return 0
	}
	if r.Step > 0 {
		return r.MinTokens + (shared-r.MinTokens)/r.Step*r.Step
	}
	return shared
}

// check refuses rules that cannot be applied.
func (r Rules) check() error {
	if r.MinTokens < 0 || r.Step < 0 || r.Lookback < 0 {
		return fmt.Errorf("%w: negative MinTokens, Step or Lookback in %+v", ErrRules, r)
	}
	return nil
}
