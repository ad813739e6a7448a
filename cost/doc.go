// Package cost reads how stable a run's prompt prefix is, request by request,
// as a provider's prompt cache sees it: the system prompt, then the tools on
// offer, then the conversation. For each request it finds the longest prefix
// shared with the previous request of the run, names the first place they
// differ (a Breaker), and counts the tokens that prefix spans: the provider's
// recorded cached tokens when the usage holds them, else an estimate of one
// token per four bytes of the prefix's JSON encoding. Over a run it gives the
// cacheable share of input tokens.
//
// The prefix is compared in whole elements (one system message, one tool
// definition, one message), each by its JSON encoding; the matching start of
// the first differing element is not counted, so an estimate errs low. The
// rules are the same for every wire format: per-format rules (Anthropic's
// explicit cache_control breakpoints, minimum cacheable lengths) are not
// modelled.
package cost
