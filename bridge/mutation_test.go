package bridge_test

import (
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/bridge"
)

// TestCommandErrorQuotesStderr: a command that fails is reported with the
// end of its stderr after "; its stderr ends:", and a command that printed
// nothing on stderr without that phrase.
func TestCommandErrorQuotesStderr(t *testing.T) {
	bin := buildCommandAgent(t)
	for _, tc := range []struct{ mode, timeout, suffix string }{
		{"fail", "60s", "exit status 3; its stderr ends:\ncmdagent: cannot go on in $WORK"},
		{"hang", "300ms", "did not finish within 300ms and was killed"},
	} {
		s := load(t, writeScenario(t, commandText(bin, tc.mode, tc.timeout)))
		o, err := bridge.RunScenario(t.Context(), s, bridge.Command(s), &bridge.RunOptions{Model: notesScript()})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(o.Error, tc.suffix) {
			t.Errorf("%s: the outcome's error is\n%s\nwant it to end with\n%s", tc.mode, o.Error, tc.suffix)
		}
	}
}
