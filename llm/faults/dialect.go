package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/faults/faultspec"
	"github.com/tapeloop/tapeloop/llm/wire"
)

// maxBody bounds a body the transport reads whole (to truncate arguments).
const maxBody = 64 << 20

// dialect is the wire format of a provider: how it spells errors.
type dialect = wire.Format

var (
	openAI    = wire.OpenAI
	anthropic = wire.Anthropic
)

// dialectOf tells the format from the request path (wire.FormatOf); a path
// no format claims gets OpenAI's dialect, which OpenAI-compatible servers
// answer in whatever path they serve.
func dialectOf(req *http.Request) dialect {
	if f, ok := wire.FormatOf(req.URL.Path); ok {
		return f
	}
	return openAI
}

// errorResponse is the response a server of dialect d sends for status,
// with Retry-After in whole seconds, rounded up.
func errorResponse(d dialect, req *http.Request, status int, retryAfter time.Duration) *http.Response {
	e := &wire.Error{Status: status, Message: fmt.Sprintf("injected fault: HTTP %d", status),
		RetryAfter: time.Duration(math.Ceil(retryAfter.Seconds())) * time.Second}
	body := e.Body(d)
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        e.HeaderFor(d),
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// errorEvent is the SSE event a server of dialect d sends when it fails in
// the middle of a stream with an error of type typ.
func errorEvent(d dialect, typ string) []byte {
	e := &wire.Error{Message: "injected fault: " + typ}
	switch typ {
	case faultspec.TypeRateLimited:
		e.Kind = llm.ErrRateLimited
	case faultspec.TypeServer:
		e.Status = http.StatusInternalServerError
	default:
		e.Kind = llm.ErrOverloaded
	}
	return e.Event(d)
}

// errorStream passes the stream's first event through, then sends an error
// event and ends. A body that is not a stream is cut at its middle instead
// (a JSON body cannot carry an error after it began).
func errorStream(d dialect, body io.ReadCloser, typ string, sse bool) io.ReadCloser {
	data, err := io.ReadAll(io.LimitReader(body, maxBody))
	body.Close()
	if err != nil {
		return io.NopCloser(&failingReader{err: err})
	}
	if !sse {
		return io.NopCloser(bytes.NewReader(data[:len(data)/2]))
	}
	first := data
	if i := eventEnd(data); i >= 0 {
		first = data[:i]
	}
	return io.NopCloser(io.MultiReader(bytes.NewReader(first), bytes.NewReader(errorEvent(d, typ))))
}

// eventEnd returns the index just past the first SSE event of data (its
// blank line), or -1.
func eventEnd(data []byte) int {
	for _, sep := range []string{"\n\n", "\r\n\r\n"} {
		if i := bytes.Index(data, []byte(sep)); i >= 0 {
			return i + len(sep)
		}
	}
	return -1
}

type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// cutBody ends a body after left bytes, as a dropped connection does.
type cutBody struct {
	rc   io.ReadCloser
	left int
}

func (c *cutBody) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	if len(p) > c.left {
		p = p[:c.left]
	}
	n, err := c.rc.Read(p)
	c.left -= n
	return n, err
}

func (c *cutBody) Close() error { return c.rc.Close() }

// truncateArguments reads the whole response and cuts every tool call's
// arguments to half their length (at a character boundary). Events and
// values that hold no arguments pass byte for byte.
func truncateArguments(d dialect, resp *http.Response) (io.ReadCloser, error) {
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var out []byte
	switch {
	case d == wire.Responses && isSSE(resp):
		out, err = truncateResponsesStream(data)
	case d == wire.Responses:
		out, err = truncateResponsesJSON(data)
	case d == wire.Gemini && isSSE(resp):
		out, err = truncateGeminiStream(data)
	case d == wire.Gemini:
		out, err = truncateGeminiJSON(data)
	case d == wire.Bedrock && strings.HasPrefix(resp.Header.Get("Content-Type"), wire.ContentEventStream):
		out, err = truncateBedrockStream(data)
	case d == wire.Bedrock:
		out, err = truncateBedrockJSON(data)
	case isSSE(resp):
		out, err = truncateStream(d, data)
	default:
		out, err = truncateJSON(d, data)
	}
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(out)), nil
}

// half returns the first half of s, cut back to a character boundary.
func half(s string) string {
	n := len(s) / 2
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func decode(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// truncateJSON cuts the arguments of a whole (non-streamed) response. An
// Anthropic response holds its calls' input as parsed JSON, which has no
// text to cut: it passes unchanged.
func truncateJSON(d dialect, data []byte) ([]byte, error) {
	if d == anthropic {
		return data, nil
	}
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	for _, ch := range list(v["choices"]) {
		msg, _ := obj(ch)["message"].(map[string]any)
		for _, tc := range list(msg["tool_calls"]) {
			if fn, ok := obj(tc)["function"].(map[string]any); ok {
				if args, ok := fn["arguments"].(string); ok {
					fn["arguments"] = half(args)
				}
			}
		}
	}
	return json.Marshal(v)
}

// fragment is one piece of a streamed call's arguments: where it sits and
// how to set it.
type fragment struct {
	key  string
	text string
	set  func(string)
}

// truncateStream cuts the arguments of a streamed response: it adds up each
// call's fragments, then keeps the first half of them.
func truncateStream(d dialect, data []byte) ([]byte, error) {
	type event struct {
		raw   []byte
		data  map[string]any
		frags []fragment
	}
	var events []event
	for len(data) > 0 {
		end := eventEnd(data)
		if end < 0 {
			end = len(data)
		}
		ev := event{raw: data[:end]}
		data = data[end:]
		payload, ok := dataLine(ev.raw)
		if ok {
			if v, err := decode([]byte(payload)); err == nil {
				ev.data = v
				ev.frags = fragments(d, v)
			}
		}
		events = append(events, ev)
	}
	var all []fragment
	for _, ev := range events {
		all = append(all, ev.frags...)
	}
	halveFragments(all)
	var out bytes.Buffer
	for _, ev := range events {
		if len(ev.frags) == 0 {
			out.Write(ev.raw)
			continue
		}
		b, err := json.Marshal(ev.data)
		if err != nil {
			return nil, err
		}
		out.WriteString(replaceData(ev.raw, b))
	}
	return out.Bytes(), nil
}

// halveFragments keeps, of each call's fragments (in stream order, a call
// named by their key), the first half of their text, cut back to a
// character boundary; the fragments after it are set empty.
func halveFragments(frags []fragment) {
	totals := map[string]int{}
	for _, f := range frags {
		totals[f.key] += len(f.text)
	}
	kept := map[string]int{}
	for _, f := range frags {
		budget := totals[f.key]/2 - kept[f.key]
		switch {
		case budget <= 0:
			f.set("")
		case len(f.text) > budget:
			cut := f.text[:budget]
			for len(cut) > 0 && !utf8.RuneStart(f.text[len(cut)]) {
				cut = cut[:len(cut)-1]
			}
			f.set(cut)
			kept[f.key] += len(cut)
		default:
			kept[f.key] += len(f.text)
		}
	}
}

// dataLine returns the payload of an event's data line.
func dataLine(ev []byte) (string, bool) {
	for _, line := range strings.Split(string(ev), "\n") {
		line = strings.TrimRight(line, "\r")
		if p, ok := strings.CutPrefix(line, "data:"); ok {
			return strings.TrimPrefix(p, " "), true
		}
	}
	return "", false
}

// replaceData returns the event with its data line's payload replaced.
func replaceData(ev []byte, payload []byte) string {
	lines := strings.SplitAfter(string(ev), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "data:") {
			eol := line[len(strings.TrimRight(line, "\r\n")):]
			lines[i] = "data: " + string(payload) + eol
			break
		}
	}
	return strings.Join(lines, "")
}

// fragments finds the argument fragments of one stream event.
func fragments(d dialect, v map[string]any) []fragment {
	var out []fragment
	if d == anthropic {
		delta, _ := v["delta"].(map[string]any)
		if v["type"] != "content_block_delta" || delta["type"] != "input_json_delta" {
			return nil
		}
		if s, ok := delta["partial_json"].(string); ok {
			out = append(out, fragment{key: fmt.Sprint(v["index"]), text: s, set: func(t string) { delta["partial_json"] = t }})
		}
		return out
	}
	for _, ch := range list(v["choices"]) {
		c := obj(ch)
		delta, _ := c["delta"].(map[string]any)
		for _, tc := range list(delta["tool_calls"]) {
			call := obj(tc)
			fn, _ := call["function"].(map[string]any)
			if s, ok := fn["arguments"].(string); ok {
				out = append(out, fragment{key: fmt.Sprint(c["index"], "/", call["index"]), text: s, set: func(t string) { fn["arguments"] = t }})
			}
		}
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
