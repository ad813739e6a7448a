// Package geminiagent is an agent tapeloop did not write, in another
// language, on the Gemini API: agent.mjs, a notes agent on the official
// `@google/genai` npm package, run as a setup.agent.command with
// GOOGLE_GEMINI_BASE_URL pointed at the bridge. Install its one package
// first:
//
//	(cd examples/geminiagent && npm ci)
//	go test ./examples/geminiagent
package geminiagent
