// Package nodeagent is an agent tapeloop did not write, in another
// language: agent.mjs, a notes agent on the official `openai` npm package
// (Chat Completions), and agent-responses.mjs, the same agent on its
// Responses API.
// Its scenarios name it as a setup.agent.command, so `evalrun replay`,
// `go test` (harness.Test with bridge.Runner) and `evalrun record` run the program with its
// model endpoint pointed at the bridge. Install its one package first:
//
//	(cd examples/nodeagent && npm ci)
//	go test ./examples/nodeagent
package nodeagent
