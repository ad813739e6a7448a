package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/tapeloop/tapeloop/llm"
)

// Keep tells d that resp answered c, and returns the id to send resp with
// (Options.ID): a Responses request that names it as previous_response_id
// then decodes to c's conversation (without c's instructions, which the
// Responses API does not carry on), resp's message, then its own input.
// The id is "resp_" and 48 hex digits of a digest of c's body and resp's
// message: the same for the same exchange, whatever order the exchanges
// of a run come in, and different for different ones. For a call of any
// other format (which keeps no state on the server) Keep keeps nothing and
// returns "". When resp is a vendor's answer to c forwarded (read back by
// DecodeAnswer), the id is the vendor's: the agent's next request, which
// is forwarded as sent, then names a response the vendor kept.
func (d *Decoder) Keep(c *Call, resp *llm.Response) string {
	if c.Format != Responses {
		return ""
	}
	if c.answerID != "" {
		d.KeepAs(c.answerID, c, resp)
		return c.answerID
	}
	h := sha256.New()
	h.Write(c.digest[:])
	msg, _ := json.Marshal(resp.Message)
	h.Write(msg)
	id := "resp_" + hex.EncodeToString(h.Sum(nil))[:48]
	d.KeepAs(id, c, resp)
	return id
}

// KeepAs is Keep with the id resp was sent with (a vendor's, when a
// recording forwards the agent's request): a request naming id as
// previous_response_id decodes to c's conversation and resp's message
// before its own input.
func (d *Decoder) KeepAs(id string, c *Call, resp *llm.Response) {
	conv := make([]llm.Message, 0, len(c.Request.Messages)-c.instructions+1)
	conv = append(append(conv, c.Request.Messages[c.instructions:]...), resp.Message)
	detach(conv) // copies, as Clone's, in one array of calls for all
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.kept == nil {
		d.kept = map[string][]llm.Message{}
	}
	d.kept[id] = conv
}

// resolve puts the conversation of c's previous response before c's input
// (after its instructions). d.mu is held.
func (d *Decoder) resolve(c *Call) error {
	prev, ok := d.kept[c.PreviousResponseID]
	if !ok {
		return requestErrorf("previous_response_id %q: no response served in this run has that id (the bridge knows only the responses it served)", c.PreviousResponseID)
	}
	msgs := make([]llm.Message, 0, len(prev)+len(c.Request.Messages))
	msgs = append(msgs, c.Request.Messages[:c.instructions]...)
	msgs = append(msgs, prev...)
	detach(msgs[c.instructions:]) // the previous conversation's copies
	msgs = append(msgs, c.Request.Messages[c.instructions:]...)
	// A call's result names the call it answers; a call made in the
	// previous response was not in this request's input.
	names := map[string]string{}
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
		}
		if m.Role == llm.RoleTool && m.Name == "" {
			msgs[i].Name = names[m.ToolCallID]
		}
	}
	c.Request.Messages = msgs
	return nil
}
