// Package vcr measures go-vcr replaying the reference workload's agent
// (bench/benchagent: a loop on openai-go) beside the bridge replaying the
// same agent, in one run. It is a module of its own so that go-vcr never
// enters tapeloop's requirements:
//
//	cd bench/vcr && go test -run '^$' -bench . -benchmem -count 5
//
// prints the native, agent-alone, bridge and go-vcr rows and the bridge's
// targets (see package bench). go-vcr replays HTTP exchanges matched
// by method, URL and body and checks nothing else; the bridge decodes each
// request, matches it against the tape, diffs the workspace per turn and
// compares the golden and the expectations.
package vcr
