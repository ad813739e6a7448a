package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"

	"github.com/tapeloop/tapeloop/llm"
)

// bedrockIn is a ConverseResponse as read back.
type bedrockIn struct {
	Output *struct {
		Message *struct {
			Content []bedrockBlock `json:"content"`
		} `json:"message"`
	} `json:"output"`
	StopReason *string       `json:"stopReason"`
	Usage      *bedrockUsage `json:"usage"`
	Message    string        `json:"message"` // an error body's
}

// decodeAnswer reads a Converse answer (a ConverseResponse) or a
// ConverseStream answer (the binary event stream), or an error answer
// (its message, the type in X-Amzn-ErrorType).
func (f bedrock) decodeAnswer(c *Call, status int, header http.Header, body []byte) (*llm.Response, error) {
	if status >= 400 {
		var e bedrockIn
		_ = json.Unmarshal(body, &e)
		return nil, answerError(f, status, header, e.Message, body)
	}
	if c.Stream {
		return f.decodeStream(header, body)
	}
	var o bedrockIn
	if err := unmarshal(f, "answer", body, &o); err != nil {
		return nil, err
	}
	if o.Output == nil || o.Output.Message == nil || o.StopReason == nil {
		return nil, malformed(f, "the answer has no output.message or stopReason")
	}
	m, err := bedrockAssistant(0, o.Output.Message.Content, map[string]string{})
	if err != nil {
		return nil, malformed(f, "the answer's message: %v", err)
	}
	return &llm.Response{Message: m, FinishReason: bedrockFinish(*o.StopReason), Usage: o.Usage.usage()}, nil
}

// decodeStream reads a ConverseStream answer: each block from its start
// and deltas (text, reasoning text and signature or redacted content, a
// tool use's input fragments joined as its arguments, byte for byte),
// messageStop's stop reason and metadata's usage; an exception message is
// the stream's failure, and a stream without messageStop is cut short
// (malformed).
func (f bedrock) decodeStream(header http.Header, body []byte) (*llm.Response, error) {
	type open struct {
		text, args       []byte
		tool             *bedrockOutToolUse
		reasoning        bool
		signature, redac string
	}
	var blocks []*open
	byIndex := map[int]*open{}
	block := func(i int) *open {
		o := byIndex[i]
		if o == nil {
			o = &open{}
			byIndex[i] = o
			blocks = append(blocks, o)
		}
		return o
	}
	resp := &llm.Response{Message: llm.Message{Role: llm.RoleAssistant}}
	stopped := false
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	for r.Len() > 0 {
		msg, err := dec.Decode(r, nil)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, malformed(f, "the event stream: %v", err)
		}
		kind := headerString(msg.Headers, ":message-type")
		if kind == "exception" || kind == "error" {
			var e bedrockIn
			_ = json.Unmarshal(msg.Payload, &e)
			h := header.Clone()
			if h == nil {
				h = http.Header{}
			}
			typ := headerString(msg.Headers, ":exception-type")
			h.Set("X-Amzn-Errortype", typ)
			pe := answerError(f, 0, h, e.Message, msg.Payload)
			switch typ {
			case "throttlingException":
				pe.Kind = llm.ErrRateLimited
			case "validationException":
				if pe.Kind != llm.ErrContextTooLong {
					pe.Kind = llm.ErrBadRequest
				}
			}
			return nil, pe
		}
		var ev struct {
			bedrockBlockDelta
			Start      *struct{ ToolUse *bedrockOutToolUse } `json:"start"`
			StopReason *string                               `json:"stopReason"`
			Usage      *bedrockUsage                         `json:"usage"`
		}
		if err := unmarshal(f, "stream event", msg.Payload, &ev); err != nil {
			return nil, err
		}
		switch headerString(msg.Headers, ":event-type") {
		case "contentBlockStart":
			if ev.Start != nil && ev.Start.ToolUse != nil {
				block(ev.ContentBlockIndex).tool = ev.Start.ToolUse
			}
		case "contentBlockDelta":
			o, d := block(ev.ContentBlockIndex), ev.Delta
			switch {
			case d.Text != nil:
				o.text = append(o.text, *d.Text...)
			case d.ToolUse != nil:
				o.args = append(o.args, d.ToolUse.Input...)
			case d.ReasoningContent != nil:
				rc := d.ReasoningContent
				o.reasoning = true
				if rc.Text != nil {
					o.text = append(o.text, *rc.Text...)
				}
				o.signature += rc.Signature
				o.redac += rc.RedactedContent
			}
		case "messageStop":
			if ev.StopReason != nil {
				resp.FinishReason = bedrockFinish(*ev.StopReason)
			}
			stopped = true
		case "metadata":
			resp.Usage = ev.Usage.usage()
		}
	}
	if !stopped {
		return nil, malformed(f, "the stream ended without messageStop")
	}
	m := &resp.Message
	for _, o := range blocks {
		switch {
		case o.tool != nil:
			m.ToolCalls = append(m.ToolCalls, llm.ToolCall{ID: o.tool.ToolUseID, Name: o.tool.Name, Arguments: string(o.args)})
		case o.reasoning && o.redac != "":
			m.Reasoning = append(m.Reasoning, llm.Reasoning{Redacted: o.redac})
		case o.reasoning:
			m.Reasoning = append(m.Reasoning, llm.Reasoning{Text: string(o.text), Signature: o.signature})
		default:
			m.Content += string(o.text)
		}
	}
	return resp, nil
}

// headerString is the string value of an event stream header; empty when
// absent or not a string.
func headerString(h eventstream.Headers, name string) string {
	if v, ok := h.Get(name).(eventstream.StringValue); ok {
		return string(v)
	}
	return ""
}

// BedrockFinishReason is the finish reason of a Converse stopReason (the
// live provider reads its answers as the bridge does).
func BedrockFinishReason(stop string) llm.FinishReason { return bedrockFinish(stop) }

// BedrockErrorKind is the kind of a Bedrock exception: by its name
// (ThrottlingException, or a stream's throttlingException, is rate
// limited), else by its status and message.
func BedrockErrorKind(status int, exception, msg string) llm.ErrorKind {
	switch strings.ToLower(exception) {
	case "throttlingexception":
		return llm.ErrRateLimited
	case "serviceunavailableexception", "internalserverexception", "modelstreamerrorexception", "modelnotreadyexception":
		return llm.ErrOverloaded
	case "accessdeniedexception", "unrecognizedclientexception":
		return llm.ErrAuth
	case "modeltimeoutexception":
		return llm.ErrTimeout
	case "validationexception":
		if llm.IsContextTooLong(msg) {
			return llm.ErrContextTooLong
		}
		return llm.ErrBadRequest
	}
	if status == 0 {
		return llm.ErrOverloaded
	}
	return llm.KindForStatus(status, msg)
}
