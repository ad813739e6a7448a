package evalrun

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/harness"
)

// checkedScenario calls a check of the caller's own from expect.check.
const checkedScenario = `format: tapeloop/v1
input: [{role: user, content: "Say hi."}]
tape:
  - response: {content: "hi"}
expect:
  check: {name: said_exactly, with: {text: %s}}
`

type saidExactly struct {
	Text string `yaml:"text" fixture:"required"`
}

var saidExactlyCheck = harness.NewChecker("said_exactly", "the final text is with.text", func(o *harness.Outcome, with saidExactly) error {
	if o.Final != with.Text {
		return fmt.Errorf("said %q, want %q", o.Final, with.Text)
	}
	return nil
})

func TestMainWithUserChecks(t *testing.T) {
	main := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb, &Options{Checks: []*harness.Checker{saidExactlyCheck}, Stdin: strings.NewReader("")})
		return code, out.String(), errb.String()
	}
	dir := newScenarios(t, map[string]string{"hi.yaml": fmt.Sprintf(checkedScenario, "hi")})
	if code, out, errOut := main("lint", dir); code != exitOK {
		t.Errorf("lint with the check: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := main("replay", "--update", dir); code != exitOK || !strings.Contains(out, "1 passed") {
		t.Errorf("replay with the check: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runCmd(t, "lint", dir); code != exitUsage || !strings.Contains(out+errOut, `unknown check "said_exactly"`) {
		t.Errorf("lint without the check: exit %d\n%s%s", code, out, errOut)
	}

	bad := newScenarios(t, map[string]string{"hi.yaml": fmt.Sprintf(checkedScenario, "bye")})
	if code, out, errOut := main("replay", "--update", bad); code != exitFailed || !strings.Contains(out+errOut, `hi.yaml:6: expect.check[said_exactly]: said "hi", want "bye"`) {
		t.Errorf("replay with a failing check: exit %d\n%s%s", code, out, errOut)
	}
	badWith := newScenarios(t, map[string]string{"hi.yaml": strings.Replace(fmt.Sprintf(checkedScenario, "hi"), "text:", "txt:", 1)})
	if code, out, errOut := main("lint", badWith); code != exitUsage || !strings.Contains(out+errOut, "hi.yaml:6: expect.check[said_exactly].with.txt: unknown key") {
		t.Errorf("lint with a bad with: exit %d\n%s%s", code, out, errOut)
	}
}
