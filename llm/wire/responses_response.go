package wire

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// responsesUsage is a response's usage.
type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
	// cacheSeen says the decoded usage stated cached_tokens (see
	// llm.Usage.CacheReported).
	cacheSeen bool
}

// UnmarshalJSON decodes the usage and notes whether it states
// input_tokens_details.cached_tokens.
func (u *responsesUsage) UnmarshalJSON(b []byte) error {
	type fields responsesUsage
	if err := json.Unmarshal(b, (*fields)(u)); err != nil {
		return err
	}
	u.cacheSeen = hasKey(b, "input_tokens_details", "cached_tokens")
	return nil
}

func responsesUsageOf(u llm.Usage) *responsesUsage {
	w := &responsesUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	w.InputTokensDetails.CachedTokens = u.CachedInputTokens
	w.OutputTokensDetails.ReasoningTokens = u.ReasoningTokens
	return w
}

// responsesPart is a part of an output message's content.
type responsesPart struct {
	Type        string   `json:"type"`
	Text        string   `json:"text"`
	Annotations []string `json:"annotations"`
	Logprobs    []string `json:"logprobs,omitempty"`
}

// responsesSummary is a part of a reasoning item's summary.
type responsesSummary struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responsesOutItem is an item of a response's output: a message, a
// function call, or a reasoning item (raw, when it is one kept as it came).
type responsesOutItem struct {
	ID        string              `json:"id"`
	Type      string              `json:"type"`
	Status    string              `json:"status,omitempty"`
	Role      string              `json:"role,omitempty"`
	Content   *[]responsesPart    `json:"content,omitempty"`
	Arguments *string             `json:"arguments,omitempty"`
	CallID    string              `json:"call_id,omitempty"`
	Name      string              `json:"name,omitempty"`
	Summary   *[]responsesSummary `json:"summary,omitempty"`

	raw json.RawMessage // a reasoning item as it came: sent as it is
}

// MarshalJSON writes the item, or its raw JSON when it has one.
func (it responsesOutItem) MarshalJSON() ([]byte, error) {
	if it.raw != nil {
		return it.raw, nil
	}
	return json.Marshal(plainOutItem(it))
}

// plainOutItem is responsesOutItem without its MarshalJSON: encoded in
// the pass that encodes what holds it, where a Marshaler's output is
// encoded apart, then scanned again to be checked and compacted.
type plainOutItem responsesOutItem

// outputValues returns items as a response object's output holds them:
// each raw item as its JSON, any other as a plainOutItem.
func outputValues(items []responsesOutItem) []any {
	out := make([]any, len(items))
	for i := range items {
		if items[i].raw != nil {
			out[i] = items[i].raw
		} else {
			out[i] = (*plainOutItem)(&items[i])
		}
	}
	return out
}

// responsesObject is a response object: the JSON answer, and what the
// stream's response.* events carry.
type responsesObject struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"`
	CreatedAt         int64               `json:"created_at"`
	Status            string              `json:"status"`
	Error             *responsesErrorBody `json:"error"`
	IncompleteDetails *struct {
		Reason string `json:"reason"`
	} `json:"incomplete_details"`
	Instructions       *string         `json:"instructions"`
	Model              string          `json:"model"`
	Output             []any           `json:"output"` // see outputValues
	ParallelToolCalls  bool            `json:"parallel_tool_calls"`
	PreviousResponseID *string         `json:"previous_response_id"`
	ToolChoice         string          `json:"tool_choice"`
	Tools              []struct{}      `json:"tools"`
	Usage              *responsesUsage `json:"usage"`
	Metadata           struct{}        `json:"metadata"`
}

// responsesErrorBody is the error of a failed response.
type responsesErrorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// responsesStatus returns the status of resp's response, and why it is
// incomplete ("" when it is complete): a length finish is an answer cut at
// max_output_tokens, a filtered one cut by the content filter.
func responsesStatus(resp *llm.Response) (status, reason string) {
	switch resp.FinishReason {
	case llm.FinishLength:
		return "incomplete", "max_output_tokens"
	case llm.FinishFiltered:
		return "incomplete", "content_filter"
	}
	return "completed", ""
}

// responsesItems returns the output items of resp's message: its
// reasoning, its text as one message, then each call; id is the
// response's, which the items' ids are made from.
func responsesItems(resp *llm.Response, id string) []responsesOutItem {
	suffix := strings.TrimPrefix(id, "resp_")
	var items []responsesOutItem
	for i, r := range resp.Message.Reasoning {
		if raw := reasoningItem(r); raw != nil {
			items = append(items, responsesOutItem{raw: raw})
			continue
		}
		summary := []responsesSummary{}
		if r.Text != "" {
			summary = append(summary, responsesSummary{Type: "summary_text", Text: r.Text})
		}
		items = append(items, responsesOutItem{ID: "rs_" + suffix + "_" + strconv.Itoa(i), Type: "reasoning", Summary: &summary})
	}
	if resp.Message.Content != "" {
		items = append(items, responsesOutItem{ID: "msg_" + suffix, Type: "message", Status: "completed", Role: "assistant",
			Content: &[]responsesPart{{Type: "output_text", Text: resp.Message.Content, Annotations: []string{}}}})
	}
	for i, tc := range resp.Message.ToolCalls {
		args := tc.Arguments
		items = append(items, responsesOutItem{ID: "fc_" + suffix + "_" + strconv.Itoa(i), Type: "function_call", Status: "completed",
			Arguments: &args, CallID: tc.ID, Name: tc.Name})
	}
	return items
}

// reasoningItem returns the reasoning item r holds as it came (its
// Signature, when that is the JSON of a reasoning item); nil when r holds
// none.
func reasoningItem(r llm.Reasoning) json.RawMessage {
	s := strings.TrimSpace(r.Signature)
	if !strings.HasPrefix(s, "{") {
		return nil
	}
	var it struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(s), &it) != nil || it.Type != "reasoning" {
		return nil
	}
	return json.RawMessage(s)
}

// responsesObjectOf returns the response object of resp, answering c, with
// status and output.
func responsesObjectOf(c *Call, resp *llm.Response, id, status, reason string, output []responsesOutItem, usage bool) responsesObject {
	o := responsesObject{ID: id, Object: "response", Status: status, Model: c.Model, Output: outputValues(output),
		ParallelToolCalls: true, ToolChoice: "auto", Tools: []struct{}{}}
	if reason != "" {
		o.IncompleteDetails = &struct {
			Reason string `json:"reason"`
		}{reason}
	}
	if c.PreviousResponseID != "" {
		p := c.PreviousResponseID
		o.PreviousResponseID = &p
	}
	if usage {
		o.Usage = responsesUsageOf(resp.Usage)
	}
	return o
}

// responsesBody is the JSON answer: a response object.
func responsesBody(c *Call, resp *llm.Response, opts *Options) []byte {
	id := opts.id("resp_tapeloop")
	status, reason := responsesStatus(resp)
	o := responsesObjectOf(c, resp, id, status, reason, responsesItems(resp, id), true)
	o.Model = opts.model(c)
	return marshal(o)
}

// responsesStream writes the typed events a Responses server streams, each
// with its sequence_number: response.created and response.in_progress; for
// each output item, response.output_item.added, its content in fragments
// (a reasoning summary's response.reasoning_summary_text.delta, a
// message's response.content_part.added and response.output_text.delta
// then .done, a call's response.function_call_arguments.delta then .done)
// and response.output_item.done; then response.completed (or
// response.incomplete) with the whole response.
func responsesStream(c *Call, resp *llm.Response, opts *Options) []byte {
	var b bytes.Buffer
	id := opts.id("resp_tapeloop")
	status, reason := responsesStatus(resp)
	n := opts.chunk()
	seq := 0
	send := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		b.Write(dataEvent(typ, marshal(fields)))
	}
	items := responsesItems(resp, id)
	start := responsesObjectOf(c, resp, id, "in_progress", "", nil, false)
	start.Model = opts.model(c)
	send("response.created", map[string]any{"response": start})
	send("response.in_progress", map[string]any{"response": start})
	for i, it := range items {
		switch {
		case it.raw != nil || it.Type == "reasoning":
			responsesStreamReasoning(send, i, it, n)
		case it.Type == "message":
			text := (*it.Content)[0].Text
			added := it
			added.Status = "in_progress"
			added.Content = &[]responsesPart{}
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			empty := responsesPart{Type: "output_text", Annotations: []string{}}
			send("response.content_part.added", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "part": empty})
			for _, p := range pieces(text, n) {
				send("response.output_text.delta", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "delta": p, "logprobs": []string{}})
			}
			send("response.output_text.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "text": text, "logprobs": []string{}})
			send("response.content_part.done", map[string]any{"item_id": it.ID, "output_index": i, "content_index": 0, "part": (*it.Content)[0]})
			send("response.output_item.done", map[string]any{"output_index": i, "item": it})
		case it.Type == "function_call":
			args := *it.Arguments
			added := it
			added.Status = "in_progress"
			empty := ""
			added.Arguments = &empty
			send("response.output_item.added", map[string]any{"output_index": i, "item": added})
			for _, p := range pieces(args, n) {
				send("response.function_call_arguments.delta", map[string]any{"item_id": it.ID, "output_index": i, "delta": p})
			}
			send("response.function_call_arguments.done", map[string]any{"item_id": it.ID, "output_index": i, "name": it.Name, "arguments": args})
			send("response.output_item.done", map[string]any{"output_index": i, "item": it})
		}
	}
	end := responsesObjectOf(c, resp, id, status, reason, items, true)
	end.Model = opts.model(c)
	if status == "incomplete" {
		send("response.incomplete", map[string]any{"response": end})
	} else {
		send("response.completed", map[string]any{"response": end})
	}
	return b.Bytes()
}

// responsesStreamReasoning sends a reasoning item's events: added (without
// its summary), its summary text in fragments, and done with the item
// whole (as it came, when it is kept so).
func responsesStreamReasoning(send func(string, map[string]any), i int, it responsesOutItem, n int) {
	var item struct {
		ID      string             `json:"id"`
		Summary []responsesSummary `json:"summary"`
	}
	if it.raw != nil {
		_ = json.Unmarshal(it.raw, &item)
	} else {
		item.ID, item.Summary = it.ID, *it.Summary
	}
	send("response.output_item.added", map[string]any{"output_index": i, "item": map[string]any{"id": item.ID, "type": "reasoning", "summary": []any{}}})
	for j, s := range item.Summary {
		send("response.reasoning_summary_part.added", map[string]any{"item_id": item.ID, "output_index": i, "summary_index": j, "part": responsesSummary{Type: "summary_text"}})
		for _, p := range pieces(s.Text, n) {
			send("response.reasoning_summary_text.delta", map[string]any{"item_id": item.ID, "output_index": i, "summary_index": j, "delta": p})
		}
		send("response.reasoning_summary_text.done", map[string]any{"item_id": item.ID, "output_index": i, "summary_index": j, "text": s.Text})
		send("response.reasoning_summary_part.done", map[string]any{"item_id": item.ID, "output_index": i, "summary_index": j, "part": s})
	}
	send("response.output_item.done", map[string]any{"output_index": i, "item": it})
}

// responsesErrorEvents returns the events a Responses stream fails with,
// from body, an error body ({"error":{...}}): "error", holding its error
// object (and its code, message and param at the top, as the API reference
// spells the event), then response.failed. seq is the first event's
// sequence_number; negative leaves it out (a stream whose length the
// caller does not know).
func responsesErrorEvents(body []byte, seq int) []byte {
	var e openAIError
	_ = json.Unmarshal(body, &e)
	code := e.Error.Type
	if e.Error.Code != nil {
		code = *e.Error.Code
	}
	ev := map[string]any{"type": "error", "code": code, "message": e.Error.Message, "param": e.Error.Param, "error": e.Error}
	failed := map[string]any{"type": "response.failed", "response": responsesObject{Object: "response", Status: "failed",
		Error: &responsesErrorBody{Code: code, Message: e.Error.Message}, Output: []any{}, Tools: []struct{}{}}}
	if seq >= 0 {
		ev["sequence_number"] = seq
		failed["sequence_number"] = seq + 1
	}
	return append(dataEvent("error", marshal(ev)), dataEvent("response.failed", marshal(failed))...)
}
