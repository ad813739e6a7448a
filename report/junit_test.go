package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// junitShape is the common JUnit XML shape (the Jenkins/Ant junit XSD, with
// properties allowed on a testcase as pytest writes them, which GitHub's and
// GitLab's readers accept): for each element, its allowed parents, attributes
// (required ones marked with !, numeric ones with #), and whether it may hold
// text.
var junitShape = map[string]struct {
	parents []string
	attrs   []string
	text    bool
}{
	"testsuites": {parents: []string{""}, attrs: []string{"name", "#tests", "#failures", "#errors", "#time", "#disabled"}},
	"testsuite":  {parents: []string{"testsuites"}, attrs: []string{"!name", "!#tests", "#failures", "#errors", "#skipped", "#disabled", "#time", "timestamp", "hostname", "id", "package", "file"}},
	"properties": {parents: []string{"testsuite", "testcase"}},
	"property":   {parents: []string{"properties"}, attrs: []string{"!name", "!value"}},
	"testcase":   {parents: []string{"testsuite"}, attrs: []string{"!name", "classname", "#time", "#assertions", "status", "file", "#line"}},
	"failure":    {parents: []string{"testcase"}, attrs: []string{"message", "type"}, text: true},
	"error":      {parents: []string{"testcase"}, attrs: []string{"message", "type"}, text: true},
	"skipped":    {parents: []string{"testcase"}, attrs: []string{"message"}, text: true},
	"system-out": {parents: []string{"testcase", "testsuite"}, text: true},
	"system-err": {parents: []string{"testcase", "testsuite"}, text: true},
}

// validateJUnit checks a document against junitShape and that each
// testsuite's counts match its testcases.
func validateJUnit(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []string
	type suite struct{ tests, failures, errors, cases, failed, errored int }
	var cur *suite
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			name := tok.Name.Local
			shape, ok := junitShape[name]
			if !ok {
				return fmt.Errorf("unknown element <%s>", name)
			}
			parent := ""
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			if !slices.Contains(shape.parents, parent) {
				return fmt.Errorf("<%s> inside <%s>", name, parent)
			}
			have := map[string]string{}
			for _, a := range tok.Attr {
				have[a.Name.Local] = a.Value
			}
			for _, spec := range shape.attrs {
				key := strings.TrimLeft(spec, "!#")
				v, present := have[key]
				if strings.Contains(spec, "!") && !present {
					return fmt.Errorf("<%s> lacks the required attribute %s", name, key)
				}
				if present && strings.Contains(spec, "#") {
					if _, err := strconv.ParseFloat(v, 64); err != nil {
						return fmt.Errorf("<%s %s=%q>: not a number", name, key, v)
					}
				}
				delete(have, key)
			}
			for k := range have {
				return fmt.Errorf("<%s> has the unknown attribute %s", name, k)
			}
			switch name {
			case "testsuite":
				cur = &suite{}
				cur.tests, _ = strconv.Atoi(tok.Attr[attrIndex(tok, "tests")].Value)
				cur.failures, _ = strconv.Atoi(tok.Attr[attrIndex(tok, "failures")].Value)
				cur.errors, _ = strconv.Atoi(tok.Attr[attrIndex(tok, "errors")].Value)
			case "testcase":
				cur.cases++
			case "failure":
				cur.failed++
			case "error":
				cur.errored++
			}
			stack = append(stack, name)
		case xml.EndElement:
			if tok.Name.Local == "testsuite" && (cur.tests != cur.cases || cur.failures != cur.failed || cur.errors != cur.errored) {
				return fmt.Errorf("testsuite says tests=%d failures=%d errors=%d, holds %d, %d, %d", cur.tests, cur.failures, cur.errors, cur.cases, cur.failed, cur.errored)
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 && !junitShape[stack[len(stack)-1]].text && strings.TrimSpace(string(tok)) != "" {
				return fmt.Errorf("text inside <%s>", stack[len(stack)-1])
			}
		}
	}
	return nil
}

func attrIndex(e xml.StartElement, name string) int {
	for i, a := range e.Attr {
		if a.Name.Local == name {
			return i
		}
	}
	return 0
}

func TestJUnit(t *testing.T) {
	r := suiteReplay(t, nil)
	r.Scenarios = append(r.Scenarios, ScenarioResult{Name: "broken/load", Path: "scenarios/broken/load.yaml", Status: StatusError,
		Error: "scenarios/broken/load.yaml:3: setup: unknown key \"setpu\"\nmore"})
	r = NewReplay(r.Scenarios, nil)
	var buf bytes.Buffer
	if err := r.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(buf.Bytes()); err != nil {
		t.Fatalf("not the JUnit shape: %v\n%s", err, buf.String())
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	cases := doc.Suites[0].Cases
	if len(cases) != 3 || doc.Tests != 3 || doc.Failures != 1 || doc.Errors != 1 {
		t.Fatalf("tests %d failures %d errors %d, %d cases", doc.Tests, doc.Failures, doc.Errors, len(cases))
	}
	byName := map[string]junitCase{}
	for _, c := range cases {
		byName[c.Name] = c
	}
	pass, broken, fail := byName["files/append"], byName["broken/load"], byName["hostile/script"]
	var golden string
	for _, s := range r.Scenarios {
		if s.Name == "hostile/script" {
			golden = s.Golden
		}
	}
	if pass.Name != "files/append" || pass.Classname != "files" || pass.Failure != nil || pass.Error != nil {
		t.Errorf("passing case %+v", pass)
	}
	if !strings.Contains(pass.SystemOut, "turn 1\n  user: Append world to notes.txt.\n  call call_1 write_file") ||
		!strings.Contains(pass.SystemOut, "    repairs: trailing_comma\n") || !strings.Contains(pass.SystemOut, "final: Done.") {
		t.Errorf("the transcript in system-out:\n%s", pass.SystemOut)
	}
	if broken.Error == nil || broken.Error.Message != `scenarios/broken/load.yaml:3: setup: unknown key "setpu"` {
		t.Errorf("error case %+v", broken.Error)
	}
	wantMsg := "the outcome differs from the golden file " + golden + ": -final: It was in. +final: It is in. (and 1 more)"
	if fail.Failure == nil || fail.Failure.Message != wantMsg || fail.Failure.Type != "golden" {
		t.Fatalf("failure %+v\nwant message %s", fail.Failure, wantMsg)
	}
	if !strings.Contains(fail.Failure.Body, "-final: It was in.\n+final: It is in.") || !strings.Contains(fail.Failure.Body, `expect.final: expected the final text to contain "goodbye"`) {
		t.Errorf("failure body:\n%s", fail.Failure.Body)
	}
	if !strings.Contains(fail.SystemOut, hostile) {
		t.Errorf("the hostile string is not kept as text in system-out:\n%s", fail.SystemOut)
	}
}

func TestValidateJUnitRejects(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`<testsuites><testcase name="x"/></testsuites>`, "<testcase> inside <testsuites>"},
		{`<testsuites><testsuite name="s" tests="1"><testcase/></testsuite></testsuites>`, "<testcase> lacks the required attribute name"},
		{`<testsuites><testsuite name="s" tests="2"><testcase name="a"/></testsuite></testsuites>`, "testsuite says tests=2 failures=0 errors=0, holds 1, 0, 0"},
		{`<testsuites><testsuite name="s" tests="1" time="1s"><testcase name="a"/></testsuite></testsuites>`, `<testsuite time="1s">: not a number`},
	} {
		if err := validateJUnit([]byte(c.doc)); err == nil || err.Error() != c.want {
			t.Errorf("%s: got %v, want %s", c.doc, err, c.want)
		}
	}
}

// TestJUnitPropertiesAndEnd: only a scenario with a termination gets
// properties, and the document ends with a newline.
func TestJUnitPropertiesAndEnd(t *testing.T) {
	r := NewReplay([]ScenarioResult{
		{Name: "g/ended", Status: StatusPass, Termination: "final_text", Iterations: 2},
		{Name: "g/plain", Status: StatusPass},
	}, nil)
	var b strings.Builder
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if n := strings.Count(out, "<properties>"); n != 1 || !strings.Contains(out, `<property name="termination" value="final_text"></property>`) {
		t.Errorf("%d properties blocks in:\n%s\nwant one, for g/ended", n, out)
	}
	if !strings.HasSuffix(out, "</testsuites>\n") {
		t.Errorf("the document does not end with a newline:\n%q", out[max(0, len(out)-40):])
	}
}

// TestFailureMessageOfOneFailure: a single failure is its first line, with
// no "(and 0 more)".
func TestFailureMessageOfOneFailure(t *testing.T) {
	if got := failureMessage(ScenarioResult{Failures: []string{"expect.calls: read missing\ndetails"}}); got != "expect.calls: read missing" {
		t.Errorf("failureMessage = %q", got)
	}
}

// TestEvalJUnitErrorBody: an error trial's error is in the testcase body.
func TestEvalJUnitErrorBody(t *testing.T) {
	var b strings.Builder
	if err := evalWithAnErrorTrial().WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, "trial 2: error: provider down") || strings.Contains(out, "trial 1: error") ||
		!strings.Contains(out, `errors="1"`) || strings.Contains(out, `errors="-1"`) {
		t.Errorf("JUnit:\n%s\nwant trial 2's error in the body, and only it, and one error counted", out)
	}
}

// TestJUnitClassnameOfARootScenario: a scenario whose name is a path in the
// file system's root folder ("/smoke.yaml": an input error or an orphaned
// golden is named by the path as given on the command line, e.g. `evalrun
// replay /smoke.yaml`) is in the root folder's class, "", not grouped with
// the run's top-level scenarios ("scenarios"); a path further down keeps its
// folders, dotted.
func TestJUnitClassnameOfARootScenario(t *testing.T) {
	r := NewReplay([]ScenarioResult{
		{Name: "/smoke.yaml", Status: StatusError, Error: "cannot read"},
		{Name: "top", Status: StatusPass},
		{Name: "/srv/suite/deep.yaml", Status: StatusPass},
	}, nil)
	var b strings.Builder
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`name="/smoke.yaml" classname=""`,
		`name="top" classname="scenarios"`,
		`name="/srv/suite/deep.yaml" classname=".srv.suite"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("JUnit lacks %s:\n%s", want, out)
		}
	}
}

// TestJUnitSandboxNotes: a scenario's sandbox notes open its testcase's
// system-out, a "sandbox: " line each before the transcript, and are each
// a "sandbox" property, with or without a termination; the document keeps
// the common shape, and a scenario without notes gets neither.
func TestJUnitSandboxNotes(t *testing.T) {
	notes := []string{"the network is not isolated", "the agent command left 1 process running, killed when the run ended: node"}
	r := NewReplay([]ScenarioResult{
		{Name: "cmd/ran", Status: StatusPass, Termination: "final_text", Iterations: 1, Sandbox: notes,
			Transcript: &Transcript{Final: "answer"}},
		{Name: "cmd/refused", Status: StatusError, Error: "no sandbox", Sandbox: notes[:1]},
		{Name: "cmd/whole", Status: StatusPass},
	}, nil)
	var b strings.Builder
	if err := r.WriteJUnit(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if err := validateJUnit([]byte(out)); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	var doc junitSuites
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	cases := map[string]junitCase{}
	for _, c := range doc.Suites[0].Cases {
		cases[c.Name] = c
	}
	props := func(c junitCase) []string {
		var out []string
		if c.Properties != nil {
			for _, p := range c.Properties.Property {
				out = append(out, p.Name+"="+p.Value)
			}
		}
		return out
	}
	ran := cases["cmd/ran"]
	if want := []string{"termination=final_text", "iterations=1", "sandbox=" + notes[0], "sandbox=" + notes[1]}; !slices.Equal(props(ran), want) {
		t.Errorf("cmd/ran's properties are %q, want %q", props(ran), want)
	}
	if want := "sandbox: " + notes[0] + "\nsandbox: " + notes[1] + "\n\n" + (&Transcript{Final: "answer"}).Text(); ran.SystemOut != want {
		t.Errorf("cmd/ran's system-out is\n%q\nwant\n%q", ran.SystemOut, want)
	}
	refused := cases["cmd/refused"]
	if want := []string{"sandbox=" + notes[0]}; !slices.Equal(props(refused), want) || refused.SystemOut != "sandbox: "+notes[0]+"\n\n" {
		t.Errorf("cmd/refused: properties %q, system-out %q; want %q and its note", props(refused), refused.SystemOut, want)
	}
	if whole := cases["cmd/whole"]; whole.Properties != nil || whole.SystemOut != "" {
		t.Errorf("cmd/whole, without notes, has properties %q and system-out %q", props(whole), whole.SystemOut)
	}
}
