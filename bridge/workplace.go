package bridge

import (
	"bytes"
	"maps"
	"path/filepath"
	"slices"

	"github.com/tapeloop/tapeloop/internal/pathtext"
	"github.com/tapeloop/tapeloop/internal/sandbox"
	"github.com/tapeloop/tapeloop/llm"
)

// WorkPlaceholder is the path a bridged run's workspace has in what
// reaches the model and the tape, whichever folder the run made: the path
// a command agent sees its workspace at in a full sandbox
// (/tapeloop/work). An in-process agent (and a command agent whose
// sandbox cannot fix the path) works in a new folder each run; the bridge
// writes that folder's path as WorkPlaceholder in each request before it
// is recorded, compared or sent to a vendor, and WorkPlaceholder in each
// answer as the folder's path before the agent gets it. So the tape is
// the same on every run and machine, and the agent sees its own folder.
// A golden writes the workspace, wherever it is, as $WORK.
const WorkPlaceholder = sandbox.WorkDir

// workPlace rewrites the path of a run's workspace, as its agent sees it,
// to WorkPlaceholder in requests and back in answers. The zero value (or
// nil) rewrites nothing: the agent sees the placeholder's path itself.
type workPlace struct {
	// paths holds the workspace's paths (as given, and with its links
	// resolved), longest first.
	paths []string
	// real and realJSON are the path the agent was given, as text and
	// inside a JSON string: what WorkPlaceholder becomes in an answer.
	real, realJSON string
}

// newWorkPlace returns the workPlace of a workspace the agent sees at dir;
// nil when dir is "", the root, or the placeholder itself.
func newWorkPlace(dir string) *workPlace {
	if dir == "" {
		return nil
	}
	dir = filepath.Clean(dir)
	if dir == string(filepath.Separator) || dir == WorkPlaceholder {
		return nil
	}
	p := &workPlace{real: dir, realJSON: pathtext.JSONInner(dir), paths: []string{dir}}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir && real != string(filepath.Separator) {
		p.paths = append(p.paths, real)
	}
	slices.SortStableFunc(p.paths, func(a, b string) int { return len(b) - len(a) })
	return p
}

// placeText writes the workspace's path in s, a text, as the placeholder:
// written plainly, or as inside a JSON string (escaped in any way: a text
// may hold JSON).
func (p *workPlace) placeText(s string) string {
	if p == nil {
		return s
	}
	for _, path := range p.paths {
		s = pathtext.ReplaceEscaped(s, path, WorkPlaceholder, WorkPlaceholder)
	}
	return s
}

// placeArguments writes the workspace's path in s, JSON, as the
// placeholder, also inside strings that hold JSON (pathtext.ReplaceJSON).
func (p *workPlace) placeArguments(s string) string {
	for _, path := range p.paths {
		s = pathtext.ReplaceJSON(s, path, WorkPlaceholder)
	}
	return s
}

// placeJSON is placeArguments for JSON held as bytes: b itself when
// nothing changes.
func (p *workPlace) placeJSON(b []byte) []byte {
	s := p.placeArguments(string(b))
	if s == string(b) {
		return b
	}
	return []byte(s)
}

// request returns req with the workspace's path written as the
// placeholder in every text the model reads (messages, tool calls'
// arguments, tools, the response schema, the parameters), however JSON
// escapes it; req itself when nothing changes. Reasoning (a signed thinking block) is left as it is:
// the model wrote it, and never saw the real path. req is never changed.
func (p *workPlace) request(req *llm.Request) *llm.Request {
	if p == nil || req == nil {
		return req
	}
	out := *req
	changed := false
	for i, m := range req.Messages {
		if pm, ok := editMessage(m, p.placeText, p.placeArguments); ok {
			if !changed {
				out.Messages = slices.Clone(req.Messages)
				changed = true
			}
			out.Messages[i] = pm
		}
	}
	cloned := false
	for i, t := range req.Tools {
		d, params := p.placeText(t.Description), p.placeJSON(t.Parameters)
		if d == t.Description && bytes.Equal(params, t.Parameters) {
			continue
		}
		if !cloned {
			out.Tools, cloned, changed = slices.Clone(req.Tools), true, true
		}
		out.Tools[i].Description, out.Tools[i].Parameters = d, params
	}
	if s := p.placeJSON(req.ResponseSchema); !bytes.Equal(s, req.ResponseSchema) {
		out.ResponseSchema, changed = s, true
	}
	cloned = false
	for k, v := range req.Params {
		if s := p.placeJSON(v); !bytes.Equal(s, v) {
			if !cloned {
				out.Params, cloned, changed = maps.Clone(req.Params), true, true
			}
			out.Params[k] = s
		}
	}
	if !changed {
		return req
	}
	return &out
}

// editMessage returns m with its content rewritten by content and its
// tool calls' arguments by args, and whether anything changed; m's
// slices are copied before a change.
func editMessage(m llm.Message, content, args func(string) string) (llm.Message, bool) {
	changed := false
	if c := content(m.Content); c != m.Content {
		m.Content, changed = c, true
	}
	cloned := false
	for i, c := range m.ToolCalls {
		if a := args(c.Arguments); a != c.Arguments {
			if !cloned {
				m.ToolCalls, cloned = slices.Clone(m.ToolCalls), true
			}
			m.ToolCalls[i].Arguments, changed = a, true
		}
	}
	return m, changed
}

// unplaceText writes the placeholder in s as the workspace's path, escaped
// as a JSON string holds it where the placeholder was written escaped.
func (p *workPlace) unplaceText(s string) string {
	return pathtext.ReplaceEscaped(s, WorkPlaceholder, p.real, p.realJSON)
}

// unplaceArguments writes the placeholder in a tool call's arguments
// (JSON) as the workspace's path, escaped as a JSON string holds it.
func (p *workPlace) unplaceArguments(s string) string {
	return pathtext.ReplaceJSON(s, WorkPlaceholder, p.real)
}

// answer returns resp with the placeholder written as the workspace's
// path in its text and its tool calls' arguments; resp itself when
// nothing changes. Reasoning is served as the model wrote it (a signed
// block must come back unchanged). resp is never changed.
func (p *workPlace) answer(resp *llm.Response) *llm.Response {
	if p == nil || resp == nil {
		return resp
	}
	m, changed := editMessage(resp.Message, p.unplaceText, p.unplaceArguments)
	if !changed {
		return resp
	}
	out := *resp
	out.Message = m
	return &out
}

// userTurn returns m, a user turn (the tape's, the user model's), as the
// user role and with the workspace's path written as the placeholder: as
// the tape keeps it and the golden shows it. m is never changed.
func (p *workPlace) userTurn(m llm.Message) llm.Message {
	m = m.Clone()
	m.Role = llm.RoleUser
	if p != nil {
		m, _ = editMessage(m, p.placeText, p.placeArguments)
	}
	return m
}

// served returns a copy of m, a user turn, with the placeholder written as
// the workspace's path: what the agent gets, as it gets an answer.
func (p *workPlace) served(m llm.Message) llm.Message {
	m = m.Clone()
	if p != nil {
		m, _ = editMessage(m, p.unplaceText, p.unplaceArguments)
	}
	return m
}
