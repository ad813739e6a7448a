// Package bridge runs a scenario against an agent tapeloop did not write:
// your own loop, on openai-go, anthropic-sdk-go or any client of the Chat
// Completions or Messages API, with only its model endpoint swapped. It
// serves the scenario's tape behind an *http.Client (in process, no socket)
// and a base URL, in both wire formats (package llm/wire), and builds the
// same harness.Outcome as a native run from the traffic and the workspace,
// so goldens, expectations, record and eval work unchanged.
//
//	func TestScenarios(t *testing.T) {
//		harness.Test(t, "scenarios", &harness.TestOptions{
//			Agents: map[string]harness.Runner{"myagent": bridge.Runner(func(ctx context.Context, r *bridge.Run) error {
//				client := openai.NewClient(option.WithBaseURL(r.OpenAIBaseURL),
//					option.WithHTTPClient(r.HTTPClient), option.WithAPIKey(r.APIKey))
//				answer, err := myagent.Run(ctx, client, r.Dir, r.Input)
//				r.Final(answer)
//				return err
//			}, nil)},
//		})
//	}
//
// Runner is the seam: the harness.Runner of a bridged scenario, as an
// http.RoundTripper is behind an http.Client. harness.Test, Verify and Run
// are the one entry point for native and bridged scenarios alike.
//
// What the harness sees is only the traffic: each request as the agent
// sent it, decoded, and each response the tape gave. From it come the
// turns, the calls with their arguments as the model emitted them, the
// results the agent sent back (the next request's tool messages, by call
// id), the final text, the model calls and retries, and per turn the
// workspace diff (the directory is snapshotted at each model request).
// Repairs, coercions and tool failure kinds happen inside the agent and
// are not claimed; a bridged scenario (setup.agent) may not expect them.
//
// Replay fails closed as a native one does: a request that differs from
// the recording or comes after the tape's end is answered with an error
// and fails the scenario with the entry's file:line and the difference, and
// entries left unused fail it too.
package bridge
