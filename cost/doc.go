// Package cost reads how stable a run's prompt prefix is, request by request,
// as a provider's prompt cache sees it, and what that stability is worth. For
// each request it finds the longest prefix shared with the previous request
// of the run, names the first place they differ (a Breaker), and counts the
// tokens the cache could read: the provider's recorded cached tokens when the
// usage holds them, else an estimate of one token per four bytes of the
// prefix's JSON encoding, cut by the vendor's Rules. Over a run it gives the
// cacheable share of input tokens; at a Price, a row of the dated table kept
// in the repository (BundledPrices, cost/prices.yaml) or of a file of one's
// own (LoadPrices), it gives the cost with and without the cache (Bill).
//
// Rules say how each vendor's cache reads a request: Generic compares in the
// order system prompt, tools, messages with no minimum; OpenAI keeps 1024
// tokens and more, in steps of 128; Anthropic and Bedrock read tools before
// the system prompt and keep only prefixes ending at a breakpoint
// (cache_control, cachePoint): the request's own (llm.Request.Cache), or,
// where it records none, two assumed: after the system prompt and on the
// last message; Gemini keeps a shared prefix past the model's minimum.
//
// A Collector gathers a run's calls from the agent loop's events (the
// harness uses one for expect.cache, evalrun cost another).
//
// The prefix is compared in whole elements (one system message, one tool
// definition, one message), each by its JSON encoding; the matching start of
// the first differing element is not counted, so an estimate errs low.
package cost
