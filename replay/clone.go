package replay

import "github.com/tapeloop/tapeloop/llm"

// cloneResponse returns a deep copy of r; nil gives nil.
func cloneResponse(r *llm.Response) *llm.Response {
	if r == nil {
		return nil
	}
	c := *r
	c.Message = r.Message.Clone()
	return &c
}

// cloneMessages returns a deep copy of ms; nil gives nil.
func cloneMessages(ms []llm.Message) []llm.Message {
	if ms == nil {
		return nil
	}
	c := make([]llm.Message, len(ms))
	for i, m := range ms {
		c[i] = m.Clone()
	}
	return c
}
