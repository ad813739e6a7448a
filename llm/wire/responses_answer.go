package wire

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// responsesInObject is a response object as a Responses API server sends
// it: the JSON answer, and what a stream's response.* events hold.
type responsesInObject struct {
	ID                string `json:"id"`
	Status            string `json:"status"`
	Error             *responsesErrorBody
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Output []json.RawMessage `json:"output"`
	Usage  *responsesUsage   `json:"usage"`
}

// responsesInItem is an output item: a message, a function call or a
// reasoning item (other items, a server's own tools' calls, are skipped).
type responsesInItem struct {
	Type    string `json:"type"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Summary   []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// responsesInEvent is a stream event: its type, the response it holds,
// and an error event's error (nested, as OpenAI sends it, or at the top,
// as the API reference spells it).
type responsesInEvent struct {
	Type     string             `json:"type"`
	Response *responsesInObject `json:"response"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Message string `json:"message"`
}

func (f responsesAPI) decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	if status >= 400 {
		var e openAIInCompletion
		_ = json.Unmarshal(body, &e)
		msg := ""
		if e.Error != nil {
			msg = e.Error.Message
		}
		return nil, answerError(f, status, header, msg, body)
	}
	if c.Stream {
		return f.decodeStream(c, header, body)
	}
	var o responsesInObject
	if err := unmarshal(f, "answer", body, &o); err != nil {
		return nil, err
	}
	c.answerID = o.ID
	return f.response(header, &o)
}

// decodeStream reads a Responses stream (noting the response's id on c,
// see Call.answerID): the response its
// response.completed (or response.incomplete) event holds, whole; an error
// event, or response.failed, is the stream's failure, and a stream without
// its last event is cut short (malformed).
func (f responsesAPI) decodeStream(c *Call, header http.Header, body []byte) (*llm.Response, error) {
	for _, ev := range sseEvents(body) {
		var e responsesInEvent
		if err := unmarshal(f, "stream event", ev.data, &e); err != nil {
			return nil, err
		}
		switch {
		case e.Type == "error" || (e.Type == "" && e.Error != nil):
			msg := e.Message
			if e.Error != nil && e.Error.Message != "" {
				msg = e.Error.Message
			}
			return nil, answerError(f, 0, header, msg, ev.data)
		case e.Type == "response.failed", e.Type == "response.completed", e.Type == "response.incomplete":
			if e.Response == nil {
				return nil, malformed(f, "the %s event holds no response", e.Type)
			}
			c.answerID = e.Response.ID
			return f.response(header, e.Response)
		}
	}
	return nil, malformed(f, "the stream ended without response.completed")
}

// response reads a response object: reasoning items kept as they came
// (Signature, keys sorted), the messages' text (a refusal's too, filtered),
// the function calls; an incomplete response is cut at its length (or
// filtered), a failed one the error it holds.
func (f responsesAPI) response(header http.Header, o *responsesInObject) (*llm.Response, error) {
	if o.Status == "failed" {
		msg := ""
		if o.Error != nil {
			msg = o.Error.Message
		}
		return nil, answerError(f, 0, header, msg, nil)
	}
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	var texts []string
	refused := false
	for i, raw := range o.Output {
		var it responsesInItem
		if err := unmarshal(f, "output item", raw, &it); err != nil {
			return nil, err
		}
		switch it.Type {
		case "reasoning":
			var sum []string
			for _, s := range it.Summary {
				sum = append(sum, s.Text)
			}
			resp.Message.Reasoning = append(resp.Message.Reasoning, llm.Reasoning{Text: strings.Join(sum, "\n\n"), Signature: canonicalJSON(raw)})
		case "message":
			for _, p := range it.Content {
				switch p.Type {
				case "output_text":
					texts = append(texts, p.Text)
				case "refusal":
					texts = append(texts, p.Refusal)
					refused = true
				}
			}
		case "function_call":
			if it.CallID == "" && it.Name == "" {
				return nil, malformed(f, "output[%d]: a function call without call_id and name", i)
			}
			resp.Message.ToolCalls = append(resp.Message.ToolCalls, llm.ToolCall{ID: it.CallID, Name: it.Name, Arguments: answerArguments(it.Arguments)})
		}
	}
	resp.Message.Content = strings.Join(texts, "\n")
	switch {
	case refused || (o.Status == "incomplete" && o.IncompleteDetails != nil && o.IncompleteDetails.Reason == "content_filter"):
		resp.FinishReason = llm.FinishFiltered
	case o.Status == "incomplete":
		resp.FinishReason = llm.FinishLength
	case len(resp.Message.ToolCalls) > 0:
		resp.FinishReason = llm.FinishToolCalls
	default:
		resp.FinishReason = llm.FinishStop
	}
	if u := o.Usage; u != nil {
		resp.Usage = llm.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			CachedInputTokens: u.InputTokensDetails.CachedTokens, ReasoningTokens: u.OutputTokensDetails.ReasoningTokens,
			CacheReported: llm.ReportedZeroCache(u.cacheSeen, u.InputTokensDetails.CachedTokens, 0)}
	}
	return resp, nil
}
