// Package mixed is one folder of scenarios of both kinds, run by one
// harness.Test and one `evalrun replay`: scenarios/loop.yaml runs on
// tapeloop's own loop with the fixture tools, scenarios/agent.yaml on your
// own agent (the openai-go notes agent of examples/notes), whose model
// endpoint the bridge points at the tape. The fork between the two is
// harness.Run's: the bridged scenario names its agent (setup.agent.go:
// notes), and the test gives the runner of that name.
//
//	go test ./examples/mixed
package mixed
