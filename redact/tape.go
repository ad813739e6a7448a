package redact

// Redacting what a tape holds: an entry, a message, an offered block, a
// judge's verdict.

import (
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// RedactVerdict redacts every string v holds, in place: the rubric, the
// model, the judged text, the reason and the request's messages. v must
// own its request (see Verdict.Clone).
func (r *Redactor) RedactVerdict(v *tape.Verdict) {
	v.Rubric = r.Redact(v.Rubric)
	v.Model = r.Redact(v.Model)
	v.Judged = r.Redact(v.Judged)
	v.Reason = r.Redact(v.Reason)
	if v.Request != nil {
		e := tape.Entry{Request: v.Request}
		r.RedactEntry(&e)
	}
}

// redactReasoning redacts the reasoning of m in place: each block's text,
// signature and redacted data, and each call's signature. Signatures are
// not secrets and pass unchanged (the redactor finds no secret in random
// base64); a known secret quoted in a Responses reasoning item's summary
// is replaced as it is anywhere else. m must own its Reasoning.
func (r *Redactor) redactReasoning(m *llm.Message) {
	for i := range m.Reasoning {
		b := &m.Reasoning[i]
		b.Text, b.Signature, b.Redacted = r.Redact(b.Text), r.Redact(b.Signature), r.Redact(b.Redacted)
	}
	for i := range m.ToolCalls {
		m.ToolCalls[i].Signature = r.Redact(m.ToolCalls[i].Signature)
	}
}

// RedactOffered redacts every string of o in place: the system prompts,
// each tool's name, description and parameters, the response schema and
// the request parameters (Params, each as JSON text).
func (r *Redactor) RedactOffered(o *tape.Offered) {
	if o == nil {
		return
	}
	for i := range o.System {
		o.System[i] = r.Redact(o.System[i])
	}
	for i := range o.Tools {
		t := &o.Tools[i]
		t.Name, t.Description = r.Redact(t.Name), r.Redact(t.Description)
		if len(t.Parameters) > 0 {
			t.Parameters = []byte(r.Redact(string(t.Parameters)))
		}
	}
	if len(o.ResponseSchema) > 0 {
		o.ResponseSchema = []byte(r.Redact(string(o.ResponseSchema)))
	}
	r.redactParams(o.Params)
}

// RedactEntry redacts every string e holds, in place: the response's content,
// tool-call IDs, names and arguments and finish reason; the user turn; the
// request's
// offered system prompts and tools (names, descriptions, schemas), tool
// names, new messages and messages (content, tool calls, tool_call_id, name); the
// error text. e must own its messages (see Entry.Clone).
func (r *Redactor) RedactEntry(e *tape.Entry) {
	if e.Response != nil {
		r.RedactMessage(&e.Response.Message)
		e.Response.FinishReason = llm.FinishReason(r.Redact(string(e.Response.FinishReason)))
	}
	if e.User != nil {
		r.RedactMessage(e.User)
	}
	if e.Error != "" {
		e.Error = r.Redact(e.Error)
	}
	if s := e.Request; s != nil {
		for i := range s.Tools {
			s.Tools[i] = r.Redact(s.Tools[i])
		}
		if s.LastMessage != nil {
			r.RedactMessage(s.LastMessage)
		}
		for i := range s.Messages {
			r.RedactMessage(&s.Messages[i])
		}
		for i := range s.New {
			r.RedactMessage(&s.New[i])
		}
		r.RedactOffered(s.Offered)
	}
}

// RedactMessage redacts every string of m in place: content, tool-call IDs,
// names, arguments and signatures, tool_call_id, name and reasoning. m must
// own its ToolCalls and Reasoning.
func (r *Redactor) RedactMessage(m *llm.Message) {
	m.Content = r.Redact(m.Content)
	for i := range m.ToolCalls {
		c := &m.ToolCalls[i]
		c.ID, c.Name, c.Arguments = r.Redact(c.ID), r.Redact(c.Name), r.Redact(c.Arguments)
	}
	m.ToolCallID = r.Redact(m.ToolCallID)
	m.Name = r.Redact(m.Name)
	r.redactReasoning(m)
}
