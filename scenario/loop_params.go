package scenario

import (
	"encoding/json"
	"maps"
)

// Params returns the request parameters tapeloop's loop pins for l, as a
// recording keeps them under offered.params and a replay compares them:
// those of setup.loop.request (llm.RequestOptions.Params) and its model,
// as "model" (the scenario's own PROVIDER/MODEL, whichever model
// answered). Nil when setup.loop.request sets none.
func (l *LoopSetup) Params() map[string]json.RawMessage {
	params := l.Request.Params()
	if l.Model == "" {
		return params
	}
	out := make(map[string]json.RawMessage, len(params)+1)
	maps.Copy(out, params)
	out["model"], _ = json.Marshal(l.Model) // a string: never an error
	return out
}
