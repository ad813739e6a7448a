package harness

import (
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

// TestRecordCommandSaysWhatModelDoes: the command that records a scenario
// names PROVIDER/MODEL for tapeloop's loop; for a bridged agent it says
// what --model does, and names the model the tape pins
// (offered.params.model) once it pins one, with or without an offered
// block.
func TestRecordCommandSaysWhatModelDoes(t *testing.T) {
	const forwarded = "PROVIDER: the vendor whose endpoint and key get the agent's own request"
	for _, c := range []struct {
		name, src, want string
	}{
		{"loop", "format: tapeloop/v1\ninput: [{role: user, content: hi}]\ntape: []\n",
			"`evalrun record --mode all --model PROVIDER/MODEL a.yaml`"},
		{"agent, no offered block", "format: tapeloop/v1\nsetup:\n  agent: {go: notes}\ninput: [{role: user, content: hi}]\ntape: []\n",
			"`evalrun record --mode all --model PROVIDER/MODEL a.yaml` (" + forwarded + "; MODEL replaces the agent's model only when it names another)"},
		{"agent, offered without a model", "format: tapeloop/v1\nsetup:\n  agent: {go: notes}\ninput: [{role: user, content: hi}]\noffered: {system: [Be brief.]}\ntape: []\n",
			"`evalrun record --mode all --model PROVIDER/MODEL a.yaml` (" + forwarded + "; MODEL replaces the agent's model only when it names another)"},
		{"agent, model pinned", "format: tapeloop/v1\nsetup:\n  agent: {go: notes}\ninput: [{role: user, content: hi}]\noffered: {params: {model: gpt-4.1-mini}}\ntape: []\n",
			"`evalrun record --mode all --model PROVIDER/gpt-4.1-mini a.yaml` (" + forwarded + "; its model, gpt-4.1-mini, is kept unless you name another)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := scenario.Parse([]byte(c.src), "a.yaml", "a")
			if err != nil {
				t.Fatal(err)
			}
			if got := RecordCommand("evalrun", s, "a.yaml", true); got != c.want {
				t.Errorf("RecordCommand:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
