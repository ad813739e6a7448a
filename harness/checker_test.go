package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools/toolkit"
	"go.yaml.in/yaml/v3"
)

// finalIs is a check of the user's own for the tests: the final text must
// equal with.text, and, when with.file is set, that file must exist.
type finalIs struct {
	Text string `yaml:"text" fixture:"required"`
	File string `yaml:"file"`
}

var finalIsChecker = NewChecker("final_is", "the final text is with.text", func(o *Outcome, with finalIs) error {
	if o.Final != with.Text {
		return fmt.Errorf("the final text is %q, the policy wants %q", o.Final, with.Text)
	}
	if with.File != "" && !slices.ContainsFunc(o.Workspace, func(f FileState) bool { return f.Path == with.File }) {
		return fmt.Errorf("no file %s was left", with.File)
	}
	return nil
})

var noConfigChecker = NewChecker("two_turns", "the run took two model calls", func(o *Outcome, _ struct{}) error {
	if o.Iterations != 2 {
		return fmt.Errorf("took %d model calls", o.Iterations)
	}
	return nil
})

// checkScenario is demoScenario (final text "done", two model calls,
// notes.txt left) with the expect block given, and the line its first
// line is on.
func checkScenario(t *testing.T, expect string) (*scenario.Scenario, *Outcome, int) {
	t.Helper()
	s, err := scenario.Parse([]byte(demoScenario+"expect:\n"+expect), "check.yaml", "check")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s, o, strings.Count(demoScenario, "\n") + 2
}

func TestCustomChecks(t *testing.T) {
	checks := []*Checker{finalIsChecker, noConfigChecker}
	cases := []struct {
		name, expect string
		want         []string // $LINE is the expect block's first line; +N lines below it
	}{
		{name: "passes", expect: "  check: {name: final_is, with: {text: done, file: notes.txt}}\n"},
		{name: "a list, both pass", expect: "  check:\n    - {name: final_is, with: {text: done}}\n    - {name: two_turns}\n"},
		{name: "fails with its message", expect: "  check: {name: final_is, with: {text: refunded}}\n",
			want: []string{`check.yaml:$LINE: expect.check[final_is]: the final text is "done", the policy wants "refunded"`}},
		{name: "the second item of a list fails at its line", expect: "  check:\n    - {name: two_turns}\n    - {name: final_is, with: {text: done, file: gone.txt}}\n",
			want: []string{"check.yaml:$LINE+2: expect.check[final_is]: no file gone.txt was left"}},
		{name: "an unknown name fails, never passes", expect: "  check: {name: refund_matches_policy}\n",
			want: []string{`check.yaml:$LINE: expect.check[refund_matches_policy]: unknown check "refund_matches_policy" (known: final_is, two_turns)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, o, line := checkScenario(t, c.expect)
			var want []string
			for _, w := range c.want {
				w = strings.Replace(w, "$LINE+2", strconv.Itoa(line+2), 1)
				want = append(want, strings.Replace(w, "$LINE", strconv.Itoa(line), 1))
			}
			if got := checkAll(s, o, checks...); !slices.Equal(got, want) {
				t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, f := range Failures(s, o, checks...) {
				if !strings.HasPrefix(expectationOf(f), "check[") || !strings.HasPrefix(f.Key, "expect.check[") || !errors.Is(f, ErrExpectation) {
					t.Errorf("failure of %q (%q), want check[NAME] at expect.check[NAME]", expectationOf(f), f.Key)
				}
			}
		})
	}
}

func TestCustomCheckWithoutRegistration(t *testing.T) {
	s, o, line := checkScenario(t, "  check: {name: final_is, with: {text: done}}\n")
	got := checkAll(s, o)
	want := fmt.Sprintf(`check.yaml:%d: expect.check[final_is]: unknown check "final_is" (known: none registered: register yours with harness.NewChecker in your own test or evalrun main)`, line)
	if !slices.Equal(got, []string{want}) {
		t.Errorf("Check without the check registered = %q, want %q", got, want)
	}
}

func TestValidateCustomChecks(t *testing.T) {
	checks := []*Checker{finalIsChecker, noConfigChecker}
	cases := []struct {
		name, expect string
		want         string // "" for valid; $LINE as in TestCustomChecks
	}{
		{name: "valid", expect: "  check: [{name: final_is, with: {text: done}}, {name: two_turns, with: null}]\n"},
		{name: "unknown name", expect: "  check: {name: nope}\n",
			want: `check.yaml:$LINE: expect.check[nope]: unknown check "nope" (known: final_is, two_turns)`},
		{name: "unknown with key", expect: "  check:\n    name: final_is\n    with:\n      text: done\n      txt: x\n",
			want: "check.yaml:$LINE+4: expect.check[final_is].with.txt: unknown key (valid keys: text, file)"},
		{name: "missing required key", expect: "  check: {name: final_is, with: {file: a}}\n",
			want: "check.yaml:$LINE: expect.check[final_is].with.text: is required"},
		{name: "wrong type", expect: "  check:\n    name: final_is\n    with: {text: [a]}\n",
			want: "check.yaml:$LINE+2: expect.check[final_is].with.text: want a string, got a list"},
		{name: "with given to a check without options", expect: "  check: {name: two_turns, with: {n: 1}}\n",
			want: "check.yaml:$LINE: expect.check[two_turns].with: not configurable: check two_turns takes no options"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, line := checkScenario(t, c.expect)
			err := Validate(s, &RunOptions{Checks: checks})
			want := strings.Replace(c.want, "$LINE+4", strconv.Itoa(line+4), 1)
			want = strings.Replace(want, "$LINE+2", strconv.Itoa(line+2), 1)
			want = strings.Replace(want, "$LINE", strconv.Itoa(line), 1)
			switch {
			case want == "" && err != nil:
				t.Errorf("Validate: %v", err)
			case want != "" && (err == nil || err.Error() != want):
				t.Errorf("Validate = %v, want %s", err, want)
			case want != "" && !errors.Is(err, scenario.ErrScenario):
				t.Errorf("Validate's error %v does not match scenario.ErrScenario", err)
			}
		})
	}
	if err := Validate(&scenario.Scenario{}, &RunOptions{Checks: []*Checker{finalIsChecker, finalIsChecker}}); !errors.Is(err, errChecker) {
		t.Errorf("two checks of one name: Validate = %v, want errChecker", err)
	}
}

func TestParseCheckErrors(t *testing.T) {
	cases := map[string]string{
		"  check: final_is\n":           "want a mapping {name: CHECK, with: {...}}",
		"  check: []\n":                 "empty",
		"  check: {with: {text: a}}\n":  `missing key "name"`,
		"  check: {name: a, when: b}\n": "when",
	}
	for expect, want := range cases {
		_, err := scenario.Parse([]byte(demoScenario+"expect:\n"+expect), "check.yaml", "check")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "check.yaml:") {
			t.Errorf("expect %q: Parse = %v, want check.yaml:LINE ... %s", expect, err, want)
		}
	}
}

// TestCheckerNewTakesADocument: a with: node handed to a Checker as a
// whole parsed document (yaml.Unmarshal into a yaml.Node) is configured
// from the mapping it holds.
func TestCheckerNewTakesADocument(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("text: done\n"), &doc); err != nil {
		t.Fatal(err)
	}
	check, err := finalIsChecker.New(&doc)
	if err != nil {
		t.Fatalf("New(a document) = %v", err)
	}
	if err := check(&Outcome{Final: "done"}); err != nil {
		t.Errorf("final done against with.text done: %v", err)
	}
	if err := check(&Outcome{Final: "other"}); err == nil {
		t.Error("final other against with.text done passed")
	}
}

// TestCheckConfigErrorWithoutLine: a check whose New reports a bad with:
// without a line of its own is reported at the expect.check item's line.
func TestCheckConfigErrorWithoutLine(t *testing.T) {
	strict := &Checker{Name: "strict", New: func(*yaml.Node) (func(*Outcome) error, error) {
		return nil, toolkit.WithError(0, "", errors.New("bad option"))
	}}
	s, _, line := checkScenario(t, "  check: {name: strict}\n")
	err := Validate(s, &RunOptions{Checks: []*Checker{strict}})
	if want := "check.yaml:" + strconv.Itoa(line) + ": expect.check[strict].with: bad option"; err == nil || err.Error() != want {
		t.Errorf("Validate = %v, want %s", err, want)
	}
}
