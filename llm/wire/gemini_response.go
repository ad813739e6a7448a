package wire

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tapeloop/tapeloop/llm"
)

// geminiOutPart is a Part of an answer's content.
type geminiOutPart struct {
	Text             *string        `json:"text,omitempty"`
	Thought          bool           `json:"thought,omitempty"`
	FunctionCall     *geminiOutCall `json:"functionCall,omitempty"`
	ThoughtSignature string         `json:"thoughtSignature,omitempty"`
}

type geminiOutCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	ID   string          `json:"id,omitempty"`
}

type geminiOutContent struct {
	Parts []geminiOutPart `json:"parts"`
	Role  string          `json:"role"`
}

type geminiCandidate struct {
	Content      geminiOutContent `json:"content"`
	FinishReason string           `json:"finishReason,omitempty"`
	Index        int              `json:"index"`
}

// geminiUsage is a usageMetadata: candidatesTokenCount leaves out the
// thinking (thoughtsTokenCount), and promptTokenCount holds the cached
// tokens (cachedContentTokenCount).
type geminiUsage struct {
	PromptTokenCount        int `json:"promptTokenCount"`
	CandidatesTokenCount    int `json:"candidatesTokenCount,omitempty"`
	TotalTokenCount         int `json:"totalTokenCount"`
	CachedContentTokenCount int `json:"cachedContentTokenCount,omitempty"`
	ThoughtsTokenCount      int `json:"thoughtsTokenCount,omitempty"`
}

func geminiUsageOf(u llm.Usage) *geminiUsage {
	return &geminiUsage{
		PromptTokenCount: u.InputTokens, CandidatesTokenCount: u.OutputTokens - u.ReasoningTokens,
		TotalTokenCount: u.InputTokens + u.OutputTokens, CachedContentTokenCount: u.CachedInputTokens,
		ThoughtsTokenCount: u.ReasoningTokens,
	}
}

func (u *geminiUsage) usage() llm.Usage {
	if u == nil {
		return llm.Usage{}
	}
	return llm.Usage{
		InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount,
		CachedInputTokens: u.CachedContentTokenCount, ReasoningTokens: u.ThoughtsTokenCount,
		// The API's JSON leaves out every count that is zero: a usage
		// without cachedContentTokenCount reports that none was read.
		CacheReported: llm.ReportedZeroCache(true, u.CachedContentTokenCount, 0),
	}
}

// geminiResponse is a GenerateContentResponse, the whole answer or one
// chunk of a stream.
type geminiResponse struct {
	Candidates    []geminiCandidate `json:"candidates"`
	UsageMetadata *geminiUsage      `json:"usageMetadata,omitempty"`
	ModelVersion  string            `json:"modelVersion,omitempty"`
	ResponseID    string            `json:"responseId,omitempty"`
}

// geminiFinish is the wire finish reason of resp.
func geminiFinish(r llm.FinishReason) string {
	switch r {
	case "", llm.FinishStop, llm.FinishToolCalls, llm.FinishPause:
		return "STOP"
	case llm.FinishLength:
		return "MAX_TOKENS"
	case llm.FinishFiltered:
		return "SAFETY"
	}
	return strings.ToUpper(string(r))
}

// geminiFinishReason reads a wire finish reason: STOP is a tool-call
// finish when the answer holds calls.
func geminiFinishReason(s string, calls bool) llm.FinishReason {
	switch s {
	case "", "FINISH_REASON_UNSPECIFIED":
		return ""
	case "STOP":
		if calls {
			return llm.FinishToolCalls
		}
		return llm.FinishStop
	case "MAX_TOKENS":
		return llm.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		return llm.FinishFiltered
	}
	return llm.FinishReason(strings.ToLower(s))
}

// geminiParts returns the parts of m: each thought as a thought part, the
// text (carrying the first signature of unshown thoughts, each further one
// on an empty text part of its own), each call with its signature. A
// message with none of these is one empty text part.
func geminiParts(m *llm.Message) []geminiOutPart {
	var parts []geminiOutPart
	var sigs []string
	for _, r := range m.Reasoning {
		if r.Text == "" {
			if r.Signature != "" {
				sigs = append(sigs, r.Signature)
			}
			continue
		}
		t := r.Text
		parts = append(parts, geminiOutPart{Text: &t, Thought: true, ThoughtSignature: r.Signature})
	}
	if m.Content != "" || len(sigs) > 0 || len(m.ToolCalls) == 0 {
		text := m.Content
		p := geminiOutPart{Text: &text}
		if len(sigs) > 0 {
			p.ThoughtSignature = sigs[0]
		}
		parts = append(parts, p)
		for _, s := range sigs[min(1, len(sigs)):] {
			empty := ""
			parts = append(parts, geminiOutPart{Text: &empty, ThoughtSignature: s})
		}
	}
	for _, tc := range m.ToolCalls {
		parts = append(parts, geminiOutPart{FunctionCall: &geminiOutCall{Name: tc.Name, Args: geminiArgs(tc.Arguments), ID: tc.ID}, ThoughtSignature: tc.Signature})
	}
	return parts
}

func geminiBody(c *Call, resp *llm.Response, opts *Options) []byte {
	return marshal(geminiResponse{
		Candidates:    []geminiCandidate{{Content: geminiOutContent{Parts: geminiParts(&resp.Message), Role: "model"}, FinishReason: geminiFinish(resp.FinishReason)}},
		UsageMetadata: geminiUsageOf(resp.Usage),
		ModelVersion:  opts.model(c),
		ResponseID:    opts.id("tapeloop"),
	})
}

// geminiStream writes the chunks a Gemini server streams, each a whole
// GenerateContentResponse with the usage so far (here, the final one) on
// every chunk: the thoughts and the text in fragments (a thought's
// signature on its last fragment; a signature of unshown thoughts on an
// empty text part after the text, as Gemini 3 sends it), every call whole
// in one chunk, and the finish reason on the last chunk.
func geminiStream(c *Call, resp *llm.Response, opts *Options) []byte {
	n := opts.chunk()
	var chunks [][]geminiOutPart
	m := &resp.Message
	var sigs []string
	for _, r := range m.Reasoning {
		if r.Text == "" {
			if r.Signature != "" {
				sigs = append(sigs, r.Signature)
			}
			continue
		}
		ps := pieces(r.Text, n)
		for i, p := range ps {
			part := geminiOutPart{Text: &p, Thought: true}
			if i == len(ps)-1 {
				part.ThoughtSignature = r.Signature
			}
			chunks = append(chunks, []geminiOutPart{part})
		}
	}
	for _, p := range pieces(m.Content, n) {
		chunks = append(chunks, []geminiOutPart{{Text: &p}})
	}
	for _, s := range sigs {
		empty := ""
		chunks = append(chunks, []geminiOutPart{{Text: &empty, ThoughtSignature: s}})
	}
	if len(m.ToolCalls) > 0 {
		var calls []geminiOutPart
		for _, tc := range m.ToolCalls {
			calls = append(calls, geminiOutPart{FunctionCall: &geminiOutCall{Name: tc.Name, Args: geminiArgs(tc.Arguments), ID: tc.ID}, ThoughtSignature: tc.Signature})
		}
		chunks = append(chunks, calls)
	}
	if len(chunks) == 0 {
		empty := ""
		chunks = append(chunks, []geminiOutPart{{Text: &empty}})
	}
	var b bytes.Buffer
	usage := geminiUsageOf(resp.Usage)
	model, id := opts.model(c), opts.id("tapeloop")
	for i, parts := range chunks {
		cand := geminiCandidate{Content: geminiOutContent{Parts: parts, Role: "model"}}
		if i == len(chunks)-1 {
			cand.FinishReason = geminiFinish(resp.FinishReason)
		}
		writeData(&b, geminiResponse{Candidates: []geminiCandidate{cand}, UsageMetadata: usage, ModelVersion: model, ResponseID: id})
	}
	return b.Bytes()
}

// geminiError is Google's error body: {"error":{"code","message","status"}},
// with a google.rpc.RetryInfo detail when the server says when to retry.
type geminiError struct {
	Error geminiErrorBody `json:"error"`
}

type geminiErrorBody struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details,omitempty"`
}

// geminiRetryInfo is the @type of the detail that says when to retry.
const geminiRetryInfo = "type.googleapis.com/google.rpc.RetryInfo"

// geminiErrorJSON returns Google's error body for a failure of kind with
// status and msg, and a RetryInfo detail when retry is positive.
func geminiErrorJSON(status int, kind llm.ErrorKind, msg string, retry time.Duration) []byte {
	e := geminiErrorBody{Code: status, Message: msg, Status: geminiStatus(status, kind)}
	if retry > 0 {
		e.Details = []map[string]any{{"@type": geminiRetryInfo, "retryDelay": strconv.FormatFloat(retry.Seconds(), 'f', -1, 64) + "s"}}
	}
	return marshal(geminiError{Error: e})
}

// geminiStatus returns the google.rpc.Code name Google's servers send with
// status (the kind decides where a status has more than one).
func geminiStatus(status int, kind llm.ErrorKind) string {
	switch status {
	case http.StatusBadRequest:
		if kind == llm.ErrContextTooLong || kind == llm.ErrBadRequest {
			return "INVALID_ARGUMENT"
		}
		return "FAILED_PRECONDITION"
	case http.StatusUnauthorized:
		return "UNAUTHENTICATED"
	case http.StatusForbidden:
		return "PERMISSION_DENIED"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusConflict:
		return "ABORTED"
	case http.StatusTooManyRequests:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case http.StatusNotImplemented:
		return "UNIMPLEMENTED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	case http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return "DEADLINE_EXCEEDED"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return "INVALID_ARGUMENT"
}

// GeminiErrorKind returns the kind of a Gemini error: by its status name
// first (DEADLINE_EXCEEDED a timeout, CANCELLED a cancellation,
// RESOURCE_EXHAUSTED a rate limit, UNAVAILABLE an overload), else by its
// HTTP status and message (llm.KindForStatus).
func GeminiErrorKind(code int, status, message string) llm.ErrorKind {
	switch status {
	case "DEADLINE_EXCEEDED":
		return llm.ErrTimeout
	case "CANCELLED":
		return llm.ErrCancelled
	case "RESOURCE_EXHAUSTED":
		return llm.ErrRateLimited
	case "UNAVAILABLE":
		return llm.ErrOverloaded
	case "UNAUTHENTICATED", "PERMISSION_DENIED":
		return llm.ErrAuth
	}
	return llm.KindForStatus(code, message)
}

// GeminiRetryDelay returns the wait a Gemini error's details ask for (a
// google.rpc.RetryInfo's retryDelay, "2s" or "1.5s"); zero when none says.
func GeminiRetryDelay(details []map[string]any) time.Duration {
	for _, d := range details {
		if d["@type"] != geminiRetryInfo {
			continue
		}
		s, _ := d["retryDelay"].(string)
		if v, err := time.ParseDuration(s); err == nil && v > 0 {
			return v
		}
	}
	return 0
}
