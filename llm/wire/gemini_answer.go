package wire

import (
	"encoding/json"
	"net/http"

	"github.com/tapeloop/tapeloop/llm"
)

// geminiInResponse is a GenerateContentResponse as a server sends it, or
// one chunk of its stream, or an error body.
type geminiInResponse struct {
	Candidates []struct {
		Content *struct {
			Parts []geminiPart `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *geminiUsage     `json:"usageMetadata"`
	Error         *geminiErrorBody `json:"error"`
}

// decodeAnswer reads a Gemini server's answer: its first candidate's parts
// (a stream's gathered in order) decoded as a model turn of a request is
// (see decodeGemini), so that the answer and the agent's next turn holding
// it are the same message; STOP is a tool-call finish when the answer holds
// calls; the usage is the last the server sent. A stream without a finish
// reason was cut short (malformed). An error's kind is read from its
// google.rpc status name (see GeminiErrorKind), its wait from Retry-After
// or a RetryInfo detail.
func (f gemini) decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	if status >= 400 {
		var e geminiInResponse
		_ = json.Unmarshal(body, &e)
		return nil, f.answerError(status, header, e.Error, body)
	}
	var chunks []geminiInResponse
	if c.Stream {
		for _, ev := range sseEvents(body) {
			var r geminiInResponse
			if err := unmarshal(f, "stream chunk", ev.data, &r); err != nil {
				return nil, err
			}
			if r.Error != nil {
				return nil, f.answerError(0, header, r.Error, ev.data)
			}
			chunks = append(chunks, r)
		}
	} else {
		var r geminiInResponse
		if err := unmarshal(f, "answer", body, &r); err != nil {
			return nil, err
		}
		if r.Error != nil {
			return nil, f.answerError(status, header, r.Error, body)
		}
		chunks = append(chunks, r)
	}
	var parts []geminiPart
	finish := ""
	var usage *geminiUsage
	for _, ch := range chunks {
		if ch.UsageMetadata != nil {
			usage = ch.UsageMetadata
		}
		if len(ch.Candidates) == 0 {
			continue
		}
		cand := ch.Candidates[0]
		if cand.Content != nil {
			parts = append(parts, cand.Content.Parts...)
		}
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
	}
	if c.Stream && finish == "" {
		return nil, malformed(f, "the stream ended without a finish reason")
	}
	if !c.Stream && len(chunks[0].Candidates) == 0 {
		return nil, malformed(f, "the answer has no candidates")
	}
	m, err := geminiModelContent(0, parts)
	if err != nil {
		return nil, malformed(f, "the answer's parts: %v", err)
	}
	return &llm.Response{Message: m, FinishReason: geminiFinishReason(finish, len(m.ToolCalls) > 0), Usage: usage.usage()}, nil
}

// answerError is the provider error of a Gemini error body e (nil when the
// body held none) sent with status (0 for an error event in a stream, whose
// status is the body's code).
func (f gemini) answerError(status int, header http.Header, e *geminiErrorBody, body []byte) *llm.ProviderError {
	if e == nil {
		return answerError(f, status, header, "", body)
	}
	if status == 0 {
		status = e.Code
	}
	pe := answerError(f, status, header, e.Message, body)
	pe.Kind = GeminiErrorKind(status, e.Status, pe.Message)
	if pe.RetryAfter == 0 {
		pe.RetryAfter = GeminiRetryDelay(e.Details)
	}
	return pe
}

// GeminiModelTurn decodes parts, the JSON array of a Gemini model turn's
// parts (an answer's, a stream's gathered in order, or a request's "model"
// content), into the assistant message it is, as the bridge decodes one
// (see DecodeGemini): thoughts as reasoning, text joined, calls with their
// ids, arguments and signatures. The error wraps ErrRequest.
func GeminiModelTurn(parts []byte) (llm.Message, error) {
	var ps []geminiPart
	if err := json.Unmarshal(parts, &ps); err != nil {
		return llm.Message{}, requestErrorf("gemini parts: %v", err)
	}
	return geminiModelContent(0, ps)
}

// GeminiFinishReason reads a Gemini finishReason: STOP is a tool-call
// finish when the answer holds calls, MAX_TOKENS a length finish, the
// safety ones (SAFETY, RECITATION, BLOCKLIST, ...) a filtered one; others
// pass through in lower case, and an empty one is none.
func GeminiFinishReason(reason string, calls bool) llm.FinishReason {
	return geminiFinishReason(reason, calls)
}
