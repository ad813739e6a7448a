// Package scenario reads, checks, finds and edits scenario files: the
// tapeloop/v1 format (specified in docs/scenario-format.md of the
// repository), without running them. Package harness runs them.
//
// Load (or Parse) decodes a file strictly: an unknown key, a wrong type, a
// bad value, an unknown format version is an error "file:line: key:
// problem" that matches ErrScenario (or tape.ErrFormat for the tape). The
// result is a Scenario: its Setup (seed, workspace, tools, loop, MCP
// servers), the Input the run starts from, the Tape of recorded model
// responses, the Expect block and the Faults a live run applies.
//
// Lint reports every problem of a file at once (tabs, durations without a
// unit, escaping paths, calls to tools not set up, expectations naming calls
// that do not exist), each with file, line and key; LintOptions.Validate
// adds what only building the scenario shows (harness.Validate).
//
// Discover finds the scenario files of a folder, GoldenPath names the
// golden file beside each, Orphans lists goldens no scenario refers to and
// StaleTemps the litter interrupted golden updates left.
//
// Recording writes into scenario files in place: SetTape and AppendTape
// replace or extend a file's `tape:` and SetValue any other value, keeping
// every other byte (comments, blank lines, key order) as the author wrote it
// and checking the result by parsing it; WriteTape does it to a file,
// atomically:
//
//	err := scenario.WriteTape("scenarios/files/append-line.yaml", recorder.Tape().Entries)
package scenario
