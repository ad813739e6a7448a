// Package bench holds the side-by-side benchmarks of tapeloop's speed targets
// (issue 17): one reference workload (10 turns, each a read and an append,
// then a final text) done by a hand-written in-memory loop (the floor), by a
// bare YAML tape parsed each run with a yaml.Marshal golden compared as bytes,
// by harness.Verify, by harness.Verify's phases (load, run, golden encode,
// compare), and by the run phase with the model answered over HTTP instead of
// replayed: tapeloop's providers, on the official OpenAI and Anthropic Go
// SDKs, calling a local httptest server that serves the tape's turns in each
// vendor's wire format (plain JSON answers), the run's golden checked to be
// the replay's; and by an agent tapeloop did not write (benchagent: a loop
// on openai-go) replayed through the bridge (BenchmarkBridge; module
// bench/vcr measures go-vcr replaying the same agent, beside it), and by
// that agent alone (BenchmarkAgentAlone: its HTTP client returns the answer
// bytes the bridge once served and does nothing else, so the row is the
// agent's own SDK and tool work, which is inside both the bridge and go-vcr
// rows), and the bridge's request decoding alone (BenchmarkBridgeDecode:
// the workload's eleven captured requests through one wire.Decoder), and
// the same agent on anthropic-sdk-go's Messages API
// (BenchmarkBridgeMessages), on google.golang.org/genai in the Gemini API's
// wire format (BenchmarkBridgeGemini), on openai-go's Responses API
// (BenchmarkBridgeResponses) and on aws-sdk-go-v2's Bedrock Converse
// (BenchmarkBridgeBedrock), each to compare per turn with BenchmarkBridge
// from the same run, and each of those agents alone against canned answer
// bytes (BenchmarkAgentAloneMessages, ...Responses, ...Gemini, ...Bedrock:
// the vendor SDK's own share of its bridged row), and per format an agent
// with no SDK replayed through the bridge (BenchmarkRaw/FORMAT: it posts
// the request bytes and headers the format's SDK agent sent, reads the
// JSON answers with encoding/json and does the same tool work, so the row
// is the bridge's own cost for the format), and each format's request
// decoding alone, by a wire.Decoder and each body whole
// (BenchmarkDecodeFormats). The
// package has no code of its own; run
//
//	go test -run '^$' -bench . -benchmem -count 5 ./bench
//
// and the benchmarks end by printing the table (package benchrow): wall and
// CPU µs/turn and allocations per run for each row, and the ratios the
// targets are stated in. The bridge's targets (issue 24) are printed two
// ways: literal, bridge ÷ native (≤ 2×) and go-vcr ÷ bridge (≥ 4×), with the
// agent's own work inside the bridge and go-vcr rows; and by overhead, a
// harness's row minus the agent alone: (bridge − agent) ÷ native (≤ 2×) and
// (go-vcr − agent) ÷ (bridge − agent) (≥ 4×). The go-vcr ratios need module
// bench/vcr, which measures all four rows (native, agent alone, bridge,
// go-vcr) in one run. The wire formats' target (issue 36: each format at
// most 1.2× Chat Completions per turn) applies to what tapeloop costs, so
// it is printed on the raw rows: each format's raw row ÷ Chat Completions'
// raw row, beside the SDK rows' ratio (bridged ÷ BridgeRow), the agents
// alone's (the vendor SDKs' own share) and what the bridge adds to each
// SDK agent (bridged − alone), for context; run the rows together, as the
// ratios are of medians of one run:
//
//	go test -run '^$' -bench 'Raw|Bridge|AgentAlone' -benchmem -count 5 ./bench
//
// On a loaded machine one process's ratios move by a third; the figures in
// docs/design.md ("Performance") are medians over 20 processes of -count 1
// run in turn, each process's rows seconds apart. Ratios use CPU time
// where the platform reports it.
package bench
