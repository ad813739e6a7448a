// Package sdkagents holds one agent per wire format the bridge serves, each
// a hand-written loop on that vendor's official Go SDK, doing the same task
// (two tools over a folder of notes): Messages on anthropic-sdk-go,
// Responses on openai-go's responses package, Gemini on
// google.golang.org/genai and Bedrock Converse on aws-sdk-go-v2. Nothing in
// them knows about tapeloop: each takes the SDK's client, and its tests
// point that client at the bridge (bridge.Runner), which serves the
// scenario's tape. Chat Completions' agent is examples/notes.
//
//	go test ./examples/sdkagents            # replay scenarios/, one per format
//	go test ./examples/sdkagents -record    # record the tapes again, from a scripted model
//	go test ./examples/sdkagents -update    # rewrite the goldens
package sdkagents
