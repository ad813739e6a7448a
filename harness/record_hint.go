package harness

import (
	"encoding/json"
	"fmt"

	"github.com/tapeloop/tapeloop/scenario"
)

// RecordCommand returns the command that records the scenario s, in
// backquotes: `command record --model PROVIDER/MODEL path`, with
// --mode all when again is set (a scenario whose tape is recorded
// again). command is the user's CLI (evalrun, or their own built on it)
// and path the scenario as they name it. For a bridged scenario (one with
// setup.agent) the command is followed by what --model does there: the
// agent's own request is forwarded, PROVIDER only chooses the vendor's
// endpoint and key, and the agent's model (named in the command once the
// tape pins it, offered.params.model) is kept unless another is named. A
// nil s is a scenario tapeloop's loop runs.
func RecordCommand(command string, s *scenario.Scenario, path string, again bool) string {
	mode := ""
	if again {
		mode = " --mode all"
	}
	if s == nil || s.Setup.Agent == nil {
		return fmt.Sprintf("`%s record%s --model PROVIDER/MODEL %s`", command, mode, path)
	}
	model, note := ForwardedModel(s)
	return fmt.Sprintf("`%s record%s --model %s %s` %s", command, mode, model, path, note)
}

// ForwardedModel returns, for the bridged scenario s, the --model that
// records or evaluates it on the model its agent asks for: PROVIDER/M
// once its tape pins M (offered.params.model), else PROVIDER/MODEL; and,
// in parentheses, what --model does for it: the agent's own request is
// forwarded, PROVIDER only chooses the vendor's endpoint and key, and the
// model named replaces the agent's only when it is another.
func ForwardedModel(s *scenario.Scenario) (model, note string) {
	const forwarded = "PROVIDER: the vendor whose endpoint and key get the agent's own request"
	if m := pinnedModel(s); m != "" {
		return "PROVIDER/" + m, fmt.Sprintf("(%s; its model, %s, is kept unless you name another)", forwarded, m)
	}
	return "PROVIDER/MODEL", "(" + forwarded + "; MODEL replaces the agent's model only when it names another)"
}

// pinnedModel returns the model s's tape pins as the one the agent asks
// for (offered.params.model, a JSON string), or "" when it pins none.
func pinnedModel(s *scenario.Scenario) string {
	if s.Offered == nil {
		return ""
	}
	var m string
	if json.Unmarshal(s.Offered.Params["model"], &m) != nil {
		return ""
	}
	return m
}
