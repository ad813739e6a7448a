package cost_test

import (
	"fmt"

	"github.com/tapeloop/tapeloop/cost"
	"github.com/tapeloop/tapeloop/llm"
)

// An agent that puts the date in its system prompt breaks the cache at
// system[0] on every request that crosses midnight; the fix keeps the date out
// of the system prompt (in the user's turn), and the prefix holds.
func ExampleAnalyze() {
	tools := []llm.ToolDefinition{{Name: "read_file", Description: "Read a file of the workspace."}}
	turn := func(system string, n int) cost.Call {
		msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: "Summarise the notes in notes/."}}
		for i := 0; i < n; i++ {
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: fmt.Sprintf("Read notes/%d.md: three items.", i)}, llm.Message{Role: llm.RoleUser, Content: "go on"})
		}
		return cost.Call{Request: llm.Request{Messages: msgs, Tools: tools}}
	}
	const base = "You are a note-taking assistant. Answer briefly."
	before := []cost.Call{turn(base+" Today is 2026-12-06.", 0), turn(base+" Today is 2026-12-07.", 1), turn(base+" Today is 2026-12-07.", 2)}
	after := []cost.Call{turn(base, 0), turn(base, 1), turn(base, 2)}
	for _, calls := range [][]cost.Call{before, after} {
		run, _ := cost.Analyze(calls)
		fmt.Printf("share %.0f%% (%d of %d tokens, estimated)\n", 100*run.Share(), run.SharedTokens, run.InputTokens)
		for _, b := range run.Breakers() {
			fmt.Printf("  request %d: %s\n", b.Request, b.Breaker)
		}
	}
	// Output:
	// share 33% (79 of 237 tokens, estimated)
	//   request 1: system[0] changed
	// share 56% (124 of 222 tokens, estimated)
}

// The same stable conversation under each vendor's cache: the generic rule
// counts every shared element, OpenAI's caches nothing under its
// 1024-token minimum, and a row of the price table prices what is left.
func ExampleRules_Analyze() {
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "You file receipts."}, {Role: llm.RoleUser, Content: "File the taxi receipt."}}
	calls := []cost.Call{
		{Request: llm.Request{Messages: msgs}},
		{Request: llm.Request{Messages: append(msgs, llm.Message{Role: llm.RoleAssistant, Content: "Filed."}, llm.Message{Role: llm.RoleUser, Content: "And the hotel one."})}},
	}
	for _, rules := range []cost.Rules{cost.Generic, cost.OpenAI} {
		run, _ := rules.Analyze(calls)
		fmt.Printf("%s: %d of %d input tokens cacheable\n", rules, run.SharedTokens, run.InputTokens)
	}
	price, _ := cost.BundledPrices().Lookup("gpt-4.1-mini-2025-04-14")
	run, _ := price.Rules().Analyze(calls)
	bill := price.Cost(run)
	fmt.Printf("%s (%s rules): $%.6f with caching, $%.6f without\n", price.Model, price.Provider, bill.WithCache, bill.WithoutCache)
	// Output:
	// generic: 24 of 69 input tokens cacheable
	// openai: 0 of 69 input tokens cacheable
	// gpt-4.1-mini (openai rules): $0.000028 with caching, $0.000028 without
}
