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
		{"model", "{model: openai-compatible/gpt-4.1}", "{model: openai-compatible/gpt-4.1-mini}", "model", `"gpt-4.1"`, "offered.params.model"},
		{"model added", "{temperature: 0.2}", "{temperature: 0.2, model: openai-compatible/gpt-4.1}", "temperature", "0.2", "offered.params.model"},
		{"model removed", "{model: openai-compatible/gpt-4.1, temperature: 0.2}", "{temperature: 0.2}", "model", `"gpt-4.1"`, "offered.params.model"},
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
    request: {model: openai/gpt-4.1-mini, temperature: 0.2}
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
	if file, _ := os.ReadFile(path); !strings.Contains(string(file), "  params:\n    model: \"openai/gpt-4.1-mini\"\n    temperature: 0.2\n") {
		t.Errorf("rebase --all did not pin the model and the temperature:\n%s", file)
	}
	if code, out, errOut := runCmd(t, "lint", "--strict-requests", path); code != exitOK || !strings.Contains(out, "parameters pinned") {
		t.Errorf("lint --strict-requests after rebase --all: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNativeModelOpened: record without --model opens the scenario's own
// model (setup.loop.request.model), which the vendor gets, and the tape
// pins it with no "answered by" note.
func TestNativeModelOpened(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"n/own.yaml": strings.Replace(nativeParamScenario, "REQUEST", "{model: openai-compatible/gpt-4.1-mini}", 1)})
	path := filepath.Join(dir, "n", "own.yaml")
	code, out, errOut := runCmd(t, "record", "--base-url", srv.URL+"/v1", path)
	if code != exitOK {
		t.Fatalf("record without --model: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "answered by") {
		t.Errorf("record of the scenario's own model says another answered:\n%s", out)
	}
	if len(vendor.bodies) != 1 {
		t.Fatalf("the vendor got %d requests, want 1", len(vendor.bodies))
	}
	var body struct{ Model string }
	if err := json.Unmarshal(vendor.bodies[0], &body); err != nil || body.Model != "gpt-4.1-mini" {
		t.Errorf("the vendor was asked for model %q (%v), want gpt-4.1-mini", body.Model, err)
	}
	file, _ := os.ReadFile(path)
	if !strings.Contains(string(file), "\n  params:\n    model: \"openai-compatible/gpt-4.1-mini\"\n") || strings.Contains(string(file), "answered by") {
		t.Errorf("the tape does not pin the scenario's model alone:\n%s", file)
	}
	if code, out, errOut := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNativeModelAnsweredBy: record --model naming another model than the
// scenario's own opens --model, whose name the vendor gets; the tape still
// pins the scenario's model, noting beside it which model answered, and
// record's report says so; the replay passes, and eval --model of another
// model reports the same.
func TestNativeModelAnsweredBy(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"n/other.yaml": strings.Replace(nativeParamScenario, "REQUEST", "{model: openai-compatible/gpt-4.1}", 1)})
	path := filepath.Join(dir, "n", "other.yaml")
	code, out, errOut := runCmd(t, "record", "--model", "openai-compatible/gpt-4.1-mini", "--base-url", srv.URL+"/v1", path)
	if code != exitOK {
		t.Fatalf("record: exit %d\n%s%s", code, out, errOut)
	}
	if want := "answered by openai-compatible/gpt-4.1-mini: opened instead of the scenario's own model (--model); the tape pins the scenario's"; !strings.Contains(out, want) {
		t.Errorf("record's report lacks %q:\n%s", want, out)
	}
	var body struct{ Model string }
	if err := json.Unmarshal(vendor.bodies[0], &body); err != nil || body.Model != "gpt-4.1-mini" {
		t.Errorf("the vendor was asked for model %q (%v), want gpt-4.1-mini (--model)", body.Model, err)
	}
	file, _ := os.ReadFile(path)
	want := "    model: \"openai-compatible/gpt-4.1\" # answered by openai-compatible/gpt-4.1-mini: the recording sent it instead (--model)\n"
	if !strings.Contains(string(file), want) {
		t.Errorf("the tape lacks\n%s\n%s", want, file)
	}
	if code, out, errOut := runCmd(t, "replay", path); code != exitOK {
		t.Errorf("replay: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNativeModelBad: a setup.loop.request.model that is not
// PROVIDER/MODEL is refused when the scenario loads, and one whose provider
// is unknown when record opens it, both at the line that names it; a
// scenario naming none, recorded without --model, is a usage error naming
// the file.
func TestNativeModelBad(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	cases := []struct{ name, request, want string }{
		{"no provider", "{model: gpt-4.1}", `n/bad.yaml:4: setup.loop.request.model: model name must be "PROVIDER/MODEL", got "gpt-4.1"`},
		{"not a string", "{model: [openai/gpt-4.1]}", "n/bad.yaml:4: setup.loop.request.model:"},
		{"unknown provider", "{model: nosuch/gpt-4.1}", `n/bad.yaml:4: setup.loop.request.model: opening model nosuch/gpt-4.1: unknown provider "nosuch"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newScenarios(t, map[string]string{"n/bad.yaml": strings.Replace(nativeParamScenario, "REQUEST", c.request, 1)})
			code, out, errOut := runCmd(t, "record", filepath.Join(dir, "n", "bad.yaml"))
			if code == exitOK || !strings.Contains(out+errOut, c.want) {
				t.Errorf("record: exit %d, want a failure naming %q\n%s%s", code, c.want, out, errOut)
			}
		})
	}
	plain := strings.Replace(nativeParamScenario, "  loop:\n    request: REQUEST\n", "  seed: 1\n", 1)
	dir := newScenarios(t, map[string]string{"n/plain.yaml": plain})
	code, out, errOut := runCmd(t, "record", filepath.Join(dir, "n", "plain.yaml"))
	if want := "plain.yaml: no model to run the scenario with: give --model PROVIDER/MODEL"; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("record of a scenario naming no model, without --model: exit %d, want %d naming %q\n%s%s", code, exitUsage, want, out, errOut)
	}
}

// TestNativeModelEval: eval without --model evaluates the scenarios' own
// model (setup.loop.request.model); eval --model naming another has that
// model answer, the report saying so (scenario_model, and a line of the
// text), and the saved trial pins the scenario's model with the note of
// which model answered, and replays.
func TestNativeModelEval(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	var vendor scriptedVendor
	srv := vendor.server(t)
	dir := newScenarios(t, map[string]string{"n/own.yaml": strings.Replace(nativeParamScenario, "REQUEST", "{model: openai-compatible/gpt-4.1}", 1)})
	if code, out, errOut := runCmd(t, "eval", "--base-url", srv.URL+"/v1", "--trials", "1", dir); code != exitOK || !strings.Contains(out, "openai-compatible/gpt-4.1") {
		t.Fatalf("eval without --model: exit %d\n%s%s", code, out, errOut)
	}
	var body struct{ Model string }
	if err := json.Unmarshal(vendor.bodies[0], &body); err != nil || body.Model != "gpt-4.1" {
		t.Errorf("eval without --model asked the vendor for %q (%v), want the scenario's gpt-4.1", body.Model, err)
	}
	saved := filepath.Join(t.TempDir(), "trials")
	jsonPath := filepath.Join(t.TempDir(), "out.json")
	code, out, errOut := runCmd(t, "eval", "--model", "openai-compatible/gpt-4.1-mini", "--base-url", srv.URL+"/v1", "--trials", "1", "--save-trials", saved, "--json", jsonPath, dir)
	if code != exitOK {
		t.Fatalf("eval --model: exit %d\n%s%s", code, out, errOut)
	}
	if want := "n/own (openai-compatible/gpt-4.1-mini): the scenario's own model is openai-compatible/gpt-4.1; openai-compatible/gpt-4.1-mini answered in its place"; !strings.Contains(out, want) {
		t.Errorf("eval's text lacks %q:\n%s", want, out)
	}
	if err := json.Unmarshal(vendor.bodies[1], &body); err != nil || body.Model != "gpt-4.1-mini" {
		t.Errorf("eval --model asked the vendor for %q (%v), want gpt-4.1-mini", body.Model, err)
	}
	r := readReport(t, jsonPath)
	tr := r.Scenarios[0].TrialsDetail[0]
	if tr.ScenarioModel != "openai-compatible/gpt-4.1" || tr.AgentModel != "" {
		t.Errorf("the trial's scenario_model %q, agent_model %q; want the scenario's model and none", tr.ScenarioModel, tr.AgentModel)
	}
	file, err := os.ReadFile(tr.Saved)
	if err != nil {
		t.Fatal(err)
	}
	if want := `model: "openai-compatible/gpt-4.1" # answered by openai-compatible/gpt-4.1-mini: the recording sent it instead (--model)`; !strings.Contains(string(file), want) {
		t.Errorf("the saved trial lacks %q:\n%s", want, file)
	}
	if code, out, errOut := runCmd(t, "replay", saved); code != exitOK {
		t.Errorf("replay of the saved trial: exit %d\n%s%s", code, out, errOut)
	}
}

// TestNativeModelEvalMixed: eval without --model of scenarios naming
// different models of their own is a usage error naming both places,
// since every scenario runs on every model evaluated.
func TestNativeModelEvalMixed(t *testing.T) {
	dir := newScenarios(t, map[string]string{
		"n/a.yaml": strings.Replace(nativeParamScenario, "REQUEST", "{model: openai/gpt-4.1}", 1),
		"n/b.yaml": strings.Replace(nativeParamScenario, "REQUEST", "{model: anthropic/claude-sonnet-4-5}", 1),
	})
	code, _, errOut := runCmd(t, "eval", dir)
	want := "the scenarios name different models of their own (openai/gpt-4.1 at " + filepath.Join(dir, "n", "a.yaml") + ":4, anthropic/claude-sonnet-4-5 at " + filepath.Join(dir, "n", "b.yaml") + ":4)"
	if code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("eval without --model: exit %d, want %d naming %q\n%s", code, exitUsage, want, errOut)
	}
}
