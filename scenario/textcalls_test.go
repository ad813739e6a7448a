package scenario_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/textcalls"
	"github.com/tapeloop/tapeloop/scenario"
)

// textCallsScenario is a scenario whose setup.loop.text_calls is tc, a YAML
// flow or block value indented under the key.
func textCallsScenario(tc string) string {
	return "format: tapeloop/v1\nsetup:\n  loop:\n    text_calls:" + tc + "\n" + minimal
}

// writeScenario writes files (name -> content) into a fresh folder and
// returns the path of s.yaml there.
func writeScenario(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "s.yaml")
}

// TestTextCallsMapping: text_calls as a mapping turns extraction on with the
// formats listed and the families declared, inline or in a file the
// scenario names.
func TestTextCallsMapping(t *testing.T) {
	acme := textcalls.Family{Name: "acme", Start: "<<call>>", End: "<</call>>", Args: "json"}
	bolt := textcalls.Family{Name: "bolt", Start: "@@", Args: "xml"}
	cases := []struct {
		name  string
		files map[string]string
		want  textcalls.Options
	}{
		{"formats only", map[string]string{"s.yaml": textCallsScenario(" {formats: [hermes, glm]}")},
			textcalls.Options{Formats: []string{"hermes", "glm"}}},
		{"families inline", map[string]string{"s.yaml": textCallsScenario("\n      families:\n        - {name: acme, start: \"<<call>>\", end: \"<</call>>\", args: json}\n        - {name: bolt, start: \"@@\", args: xml}\n      formats: [acme, hermes]")},
			textcalls.Options{Families: []textcalls.Family{acme, bolt}, Formats: []string{"acme", "hermes"}}},
		{"families in a file", map[string]string{
			"s.yaml":            textCallsScenario(" {families: formats/ours.yaml}"),
			"formats/ours.yaml": "- name: acme\n  start: \"<<call>>\"\n  end: \"<</call>>\"\n  args: json\n- {name: bolt, start: \"@@\", args: xml}\n"},
			textcalls.Options{Families: []textcalls.Family{acme, bolt}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := scenario.Load(writeScenario(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			if l := s.Setup.Loop; !l.TextCalls || !reflect.DeepEqual(l.TextCallOptions, tc.want) {
				t.Errorf("text calls %v %+v, want on %+v", l.TextCalls, l.TextCallOptions, tc.want)
			}
		})
	}
	s, err := scenario.Load(writeScenario(t, map[string]string{"s.yaml": textCallsScenario(" false")}))
	if err != nil || s.Setup.Loop.TextCalls {
		t.Errorf("text_calls: false: %v, %v; want off", s, err)
	}
}

// TestTextCallsErrors: a bad text_calls mapping, family or families file is
// reported naming the file, the line and the key.
func TestTextCallsErrors(t *testing.T) {
	known := strings.Join(textcalls.Envelopes(), ", ")
	cases := []struct {
		name  string
		files map[string]string
		want  string // $DIR is the scenario's folder
	}{
		{"unknown key", map[string]string{"s.yaml": textCallsScenario(" {format: [hermes]}")},
			`$DIR/s.yaml:4: setup.loop.text_calls: unknown key "format" (want formats, families)`},
		{"unknown format", map[string]string{"s.yaml": textCallsScenario("\n      formats:\n        - hermes\n        - hermez")},
			`$DIR/s.yaml:7: setup.loop.text_calls.formats[1]: unknown format "hermez": name a declared family or one of ` + known},
		{"bad args", map[string]string{"s.yaml": textCallsScenario("\n      families:\n        - name: acme\n          start: \"<<\"\n          args: yaml")},
			`$DIR/s.yaml:8: setup.loop.text_calls.families[0].args: unknown value "yaml" (want json | xml | pythonic)`},
		{"missing start", map[string]string{"s.yaml": textCallsScenario("\n      families:\n        - {name: acme, args: json}")},
			`$DIR/s.yaml:6: setup.loop.text_calls.families[0]: missing start (a family needs name, start and args; end is optional)`},
		{"known envelope's name", map[string]string{"s.yaml": textCallsScenario("\n      families:\n        - start: \"<<\"\n          name: hermes\n          args: json")},
			`$DIR/s.yaml:7: setup.loop.text_calls.families[0].name: "hermes" is a known envelope; give the declared one a name of its own`},
		{"declared twice", map[string]string{"s.yaml": textCallsScenario("\n      families:\n        - {name: acme, start: \"<<\", args: json}\n        - {name: acme, start: \"[[\", args: xml}")},
			`$DIR/s.yaml:7: setup.loop.text_calls.families[1].name: family "acme" is already declared on line 6`},
		{"not a list", map[string]string{"s.yaml": textCallsScenario(" {families: {name: acme}}")},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: want a sequence, got a mapping`},
		{"file name not a string", map[string]string{"s.yaml": textCallsScenario(" {families: 5}")},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: want a string, got an integer (5); quote it`},
		{"file missing", map[string]string{"s.yaml": textCallsScenario(" {families: nowhere.yaml}")},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: "nowhere.yaml" (resolved against the scenario's folder): no such file or directory`},
		{"file outside", map[string]string{"sub/s.yaml": "x", "s.yaml": textCallsScenario(" {families: ../elsewhere.yaml}")},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: "../elsewhere.yaml" leads outside the scenario's folder; the families file must be inside it`},
		{"error in the file", map[string]string{"s.yaml": textCallsScenario(" {families: fams.yaml}"), "fams.yaml": "- name: acme\n  start: \"<<\"\n  args: json\n  ends: \">>\"\n"},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: $DIR/fams.yaml:4: families[0]: unknown key "ends" (want name, start, end, args)`},
		{"empty file", map[string]string{"s.yaml": textCallsScenario(" {families: fams.yaml}"), "fams.yaml": ""},
			`$DIR/s.yaml:4: setup.loop.text_calls.families: $DIR/fams.yaml: empty; want a list of families {name, start, end, args}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeScenario(t, tc.files)
			_, err := scenario.Load(path)
			if err == nil {
				t.Fatalf("no error, want %s", tc.want)
			}
			if !errors.Is(err, scenario.ErrScenario) {
				t.Errorf("%v does not wrap ErrScenario", err)
			}
			if want := strings.ReplaceAll(tc.want, "$DIR", filepath.Dir(path)); err.Error() != want {
				t.Errorf("error:\n%s\nwant:\n%s", err, want)
			}
		})
	}
}

// TestLintTextCallFormats: lint warns about a tape response whose text holds
// a call in a format text_calls.formats leaves out, and only then.
func TestLintTextCallFormats(t *testing.T) {
	const head = "format: tapeloop/v1\nsetup:\n  tools: [echo]\n  loop:\n    text_calls: {formats: [FORMATS]}\ninput: [{role: user, content: hi}]\ntape:\n"
	hermes := "  - response: {content: \"<tool_call>{\\\"name\\\": \\\"echo\\\", \\\"arguments\\\": {\\\"text\\\": \\\"hi\\\"}}</tool_call>\"}\n  - response: {content: done}\n"
	cases := []struct {
		name, formats, tape string
		want                string // the warning; "" for none
	}{
		{"format left out", "glm", hermes, "$DIR/s.yaml:8: warning: tape[0].response.content: holds a hermes call, which stays text: setup.loop.text_calls.formats leaves hermes out"},
		{"format listed", "glm, hermes", hermes, ""},
		{"no call in the text", "glm", "  - response: {content: done}\n", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := writeScenario(t, map[string]string{"s.yaml": strings.Replace(head, "FORMATS", tc.formats, 1) + tc.tape})
			_, problems := scenario.Lint(path, nil)
			var got []string
			for _, p := range problems {
				got = append(got, scenario.LintText(p))
			}
			want := []string(nil)
			if tc.want != "" {
				want = []string{strings.ReplaceAll(tc.want, "$DIR", filepath.Dir(path))}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("problems %q, want %q", got, want)
			}
		})
	}
}
