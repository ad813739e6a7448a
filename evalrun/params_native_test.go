package evalrun

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nativeParamScenario is run by tapeloop's loop with the request options
// of setup.loop.request (REQUEST), unrecorded: record writes its tape.
const nativeParamScenario = `format: tapeloop/v1
setup:
  loop:
    request: REQUEST
input:
  - {role: user, content: "Say hello."}
expect:
  termination: final_text
`

// TestNativeParamsPinned, per option of setup.loop.request: a live model
// sends it (the vendor gets it in its own wire name), the tape pins it
// under offered.params, the replay passes, the scenario asking another
// value fails naming the parameter and the line of the offered block,
// rebase accepts it, and the old value then fails.
func TestNativeParamsPinned(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	cases := []struct {
		name, base, now string
		// wire is the Chat Completions key the vendor must get, with its
		// value as sent under base.
		wire, value string
		field       string
	}{
		{"temperature", "{temperature: 0.2}", "{temperature: 1}", "temperature", "0.2", "offered.params.temperature"},
		{"top_p", "{top_p: 0.9}", "{top_p: 0.5}", "top_p", "0.9", "offered.params.top_p"},
		{"max_tokens", "{max_tokens: 512}", "{max_tokens: 16}", "max_tokens", "512", "offered.params.max_tokens"},
		{"seed", "{seed: 7}", "{seed: 8}", "seed", "7", "offered.params.seed"},
		{"stop", "{stop: [END]}", "{stop: [END, STOP]}", "stop", `["END"]`, "offered.params.stop"},
		{"tool_choice", "{tool_choice: none}", "{tool_choice: auto}", "", "", "offered.params.tool_choice"},
		{"parallel_tool_calls", "{parallel_tool_calls: true}", "{parallel_tool_calls: false}", "", "", "offered.params.parallel_tool_calls"},
		{"added", "{temperature: 0.2}", "{temperature: 0.2, max_tokens: 16}", "temperature", "0.2", "offered.params.max_tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var vendor scriptedVendor
			srv := vendor.server(t)
			dir := newScenarios(t, map[string]string{"n/param.yaml": strings.Replace(nativeParamScenario, "REQUEST", c.base, 1)})
			path := filepath.Join(dir, "n", "param.yaml")
			if code, out, errOut := runCmd(t, "record", "--model", "openai-compatible/gpt-4.1", "--base-url", srv.URL+"/v1", path); code != exitOK {
				t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
			}
			if len(vendor.bodies) != 1 {
				t.Fatalf("the vendor got %d requests, want 1", len(vendor.bodies))
			}
			if c.wire != "" {
				var body map[string]json.RawMessage
				if err := json.Unmarshal(vendor.bodies[0], &body); err != nil || string(body[c.wire]) != c.value {
					t.Errorf("the vendor got %s: %s, want %s (body %s)", c.wire, body[c.wire], c.value, vendor.bodies[0])
				}
			}
			file, _ := os.ReadFile(path)
			if !strings.Contains(string(file), "\n  params:\n") {
				t.Fatalf("the tape pins no params:\n%s", file)
			}
			if code, out, errOut := runCmd(t, "replay", path); code != exitOK {
				t.Fatalf("replay of the recording: exit %d\n%s%s", code, out, errOut)
			}
			line := 2 + strings.Count(string(file[:strings.Index(string(file), "\noffered:")+1]), "\n")
			changed := strings.Replace(string(file), "request: "+c.base, "request: "+c.now, 1)
			if err := os.WriteFile(path, []byte(changed), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errOut := runCmd(t, "replay", path)
			want := fmt.Sprintf("%s (recorded at n/param.yaml:%d)", c.field, line)
			if code != exitFailed || !strings.Contains(out, want) {
				t.Fatalf("replay with the option changed: exit %d, want %d naming %q\n%s%s\n%s", code, exitFailed, want, out, errOut, changed)
			}
			if code, out, errOut := runCmd(t, "rebase", path); code != exitOK {
				t.Fatalf("rebase: exit %d\n%s%s", code, out, errOut)
			}
			if code, out, errOut := runCmd(t, "replay", path); code != exitOK {
				t.Fatalf("replay after rebase: exit %d\n%s%s", code, out, errOut)
			}
			rebased, _ := os.ReadFile(path)
			old := strings.Replace(string(rebased), "request: "+c.now, "request: "+c.base, 1)
			if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, out, _ := runCmd(t, "replay", path); code != exitFailed || !strings.Contains(out, c.field) {
				t.Errorf("the old option after rebase: exit %d, want %d naming %s\n%s", code, exitFailed, c.field, out)
			}
		})
	}
}

// TestNativeWithoutRequestPinsNone: a native scenario that sets no
// setup.loop.request records no params (tapeloop's loop sends none of its
// own), so the tapes recorded before they were pinned keep their meaning.
func TestNativeWithoutRequestPinsNone(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	plain := strings.Replace(nativeParamScenario, "  loop:\n    request: REQUEST\n", "  seed: 1\n", 1)
	dir := newScenarios(t, map[string]string{"n/plain.yaml": plain})
	path := filepath.Join(dir, "n", "plain.yaml")
	if code, out, errOut := runCmd(t, "record", "--model", "openai-compatible/gpt-4.1", "--base-url", srv.URL+"/v1", path); code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	file, _ := os.ReadFile(path)
	if strings.Contains(string(file), "params:") {
		t.Errorf("a scenario without setup.loop.request pins params:\n%s", file)
	}
}

// TestNativeParamsLint: lint --strict-requests wants a native scenario's
// setup.loop.request pinned, as a bridged agent's parameters; rebase --all
// pins them.
func TestNativeParamsLint(t *testing.T) {
	const s = `format: tapeloop/v1
setup:
  loop:
    request: {temperature: 0.2}
input:
  - {role: user, content: "Say hello."}
tape:
  - response: {content: "Hello."}
expect:
  termination: final_text
`
	dir := newScenarios(t, map[string]string{"n/lint.yaml": s})
	path := filepath.Join(dir, "n", "lint.yaml")
	if code, _, errOut := runCmd(t, "lint", "--strict-requests", path); code != exitUsage ||
		!strings.Contains(errOut, "offered.params: the request parameters of setup.loop.request are not pinned") {
		t.Errorf("lint --strict-requests: exit %d, want %d naming offered.params\n%s", code, exitUsage, errOut)
	}
	if code, out, errOut := runCmd(t, "rebase", "--all", path); code != exitOK {
		t.Fatalf("rebase --all: exit %d\n%s%s", code, out, errOut)
	}
	if file, _ := os.ReadFile(path); !strings.Contains(string(file), "  params:\n    temperature: 0.2\n") {
		t.Errorf("rebase --all did not pin the temperature:\n%s", file)
	}
	if code, out, errOut := runCmd(t, "lint", "--strict-requests", path); code != exitOK || !strings.Contains(out, "parameters pinned") {
		t.Errorf("lint --strict-requests after rebase --all: exit %d\n%s%s", code, out, errOut)
	}
}
