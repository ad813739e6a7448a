package bridge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// TestWorkPlaceText: the workspace's path is written as the placeholder
// where it is a whole path (a sentence's full stop ends it), in text and
// inside JSON strings (slashes escaped or not), and nowhere else.
func TestWorkPlaceText(t *testing.T) {
	p := newWorkPlace("/tmp/w")
	for _, c := range []struct{ in, want string }{
		{"cwd: /tmp/w", "cwd: /tapeloop/work"},
		{"You work in /tmp/w. Go on.", "You work in /tapeloop/work. Go on."},
		{"ls /tmp/w/a.txt /tmp/w\n", "ls /tapeloop/work/a.txt /tapeloop/work\n"},
		{`{"path":"/tmp/w/a"}`, `{"path":"/tapeloop/work/a"}`},
		{`{"path":"\/tmp\/w\/a"}`, `{"path":"/tapeloop/work\/a"}`},
		{"/tmp/wx and /tmp/w.txt and /tmp/w-2", "/tmp/wx and /tmp/w.txt and /tmp/w-2"},
		{"/srv/tmp/w and x/tmp/w", "/srv/tmp/w and x/tmp/w"},
		{"/tmp/w... and /tmp/w..x", "/tapeloop/work... and /tmp/w..x"},
	} {
		if got := p.placeText(c.in); got != c.want {
			t.Errorf("placeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"see /tapeloop/work/a.", "see /tmp/w/a."},
		{"/tapeloop/workshop /srv/tapeloop/work", "/tapeloop/workshop /srv/tapeloop/work"},
	} {
		if got := p.unplaceText(c.in); got != c.want {
			t.Errorf("unplaceText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	for _, dir := range []string{"", "/", WorkPlaceholder, WorkPlaceholder + "/"} {
		if p := newWorkPlace(dir); p != nil {
			t.Errorf("newWorkPlace(%q) rewrites %q; want nothing rewritten", dir, p.paths)
		}
	}
}

// TestWorkPlaceJSONEscapes: a workspace whose path JSON escapes (a quote,
// a backslash as on Windows) is found in a request's JSON arguments, and
// the placeholder in an answer's arguments becomes the path escaped, so
// the arguments stay JSON and decode to the path.
func TestWorkPlaceJSONEscapes(t *testing.T) {
	dir := `/tmp/a"b\c`
	p := newWorkPlace(dir)
	args, _ := json.Marshal(map[string]string{"path": dir + "/x"})
	req := &llm.Request{Messages: []llm.Message{llm.AssistantMessage("", llm.ToolCall{ID: "1", Name: "w", Arguments: string(args)})}}
	if got := p.request(req).Messages[0].ToolCalls[0].Arguments; got != `{"path":"/tapeloop/work/x"}` {
		t.Errorf("the request's arguments %s are placed as %s", args, got)
	}
	resp := &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "1", Name: "w", Arguments: `{"path":"/tapeloop/work/x"}`})}
	var back struct{ Path string }
	if err := json.Unmarshal([]byte(p.answer(resp).Message.ToolCalls[0].Arguments), &back); err != nil || back.Path != dir+"/x" {
		t.Errorf("the answer's arguments decode to %q (%v), want %q", back.Path, err, dir+"/x")
	}
}

// TestWorkPlaceAnswerEscapes: the placeholder a model wrote escaped (a
// slash as \/ or \u002f) in an answer's arguments, or in JSON inside its
// text (a structured answer), is served as the workspace's path, escaped
// as a JSON string holds it, so the JSON decodes to the path; where the
// text holds it plainly, it is served plainly.
func TestWorkPlaceAnswerEscapes(t *testing.T) {
	dir := `/tmp/é"q\w`
	p := newWorkPlace(dir)
	for _, form := range []string{`\/tapeloop\/work`, `\u002ftapeloop\u002Fwork`, `/tapeloop/work`} {
		args := `{"path":"` + form + `/x"}`
		resp := &llm.Response{Message: llm.AssistantMessage(`{"dir":"`+form+`"}`, llm.ToolCall{ID: "1", Name: "w", Arguments: args})}
		got := p.answer(resp).Message
		var back struct{ Path string }
		if err := json.Unmarshal([]byte(got.ToolCalls[0].Arguments), &back); err != nil || back.Path != dir+"/x" {
			t.Errorf("the answer's arguments %s are served as %s: %q (%v), want %q", args, got.ToolCalls[0].Arguments, back.Path, err, dir+"/x")
		}
		if form == WorkPlaceholder {
			continue // plain in a text: served plainly, below
		}
		var text struct{ Dir string }
		if err := json.Unmarshal([]byte(got.Content), &text); err != nil || text.Dir != dir {
			t.Errorf("the answer's text %s is served as %s: %q (%v), want %q", resp.Message.Content, got.Content, text.Dir, err, dir)
		}
	}
	if got := p.unplaceText("cd /tapeloop/work."); got != "cd "+dir+"." {
		t.Errorf("plain text is served as %q, want %q", got, "cd "+dir+".")
	}
}

// TestWorkPlaceLink: a workspace reached through a symbolic link is
// placed by either path (the agent may resolve it, as os.Getwd does).
func TestWorkPlaceLink(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	p := newWorkPlace(link)
	for _, in := range []string{link + "/a", resolved + "/a"} {
		if got := p.placeText(in); got != WorkPlaceholder+"/a" {
			t.Errorf("placeText(%q) = %q, want %q", in, got, WorkPlaceholder+"/a")
		}
	}
	if got := p.unplaceText(WorkPlaceholder + "/a"); got != link+"/a" {
		t.Errorf("the placeholder is served as %q, want the path the agent was given, %q", got, link+"/a")
	}
}

// TestWorkPlaceRequestLeavesItsInput: placing a request copies what it
// changes (the agent's decoder keeps the request it decoded), places the
// tools, the schema and the parameters, and leaves reasoning (signed by
// the vendor) as it was; a request without the path is returned as it is.
func TestWorkPlaceRequestLeavesItsInput(t *testing.T) {
	p := newWorkPlace("/tmp/w")
	req := &llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Work in /tmp/w."},
			{Role: llm.RoleAssistant, Content: "ok", Reasoning: []llm.Reasoning{{Text: "the user is in /tmp/w", Signature: "sig"}}},
		},
		Tools:          []llm.ToolDefinition{{Name: "ls", Description: "Lists /tmp/w.", Parameters: json.RawMessage(`{"default":"/tmp/w"}`)}},
		ResponseSchema: json.RawMessage(`{"description":"a path under /tmp/w"}`),
		Params:         map[string]json.RawMessage{"stop": json.RawMessage(`["/tmp/w"]`), "model": json.RawMessage(`"m"`)},
	}
	before, _ := json.Marshal(req)
	got := p.request(req)
	after, _ := json.Marshal(req)
	if string(before) != string(after) {
		t.Fatalf("request changed its input:\n%s\n%s", before, after)
	}
	want := &llm.Request{
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: "Work in /tapeloop/work."},
			{Role: llm.RoleAssistant, Content: "ok", Reasoning: []llm.Reasoning{{Text: "the user is in /tmp/w", Signature: "sig"}}},
		},
		Tools:          []llm.ToolDefinition{{Name: "ls", Description: "Lists /tapeloop/work.", Parameters: json.RawMessage(`{"default":"/tapeloop/work"}`)}},
		ResponseSchema: json.RawMessage(`{"description":"a path under /tapeloop/work"}`),
		Params:         map[string]json.RawMessage{"stop": json.RawMessage(`["/tapeloop/work"]`), "model": json.RawMessage(`"m"`)},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("request placed as\n%s\nwant\n%s", g, w)
	}
	plain := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}
	if p.request(plain) != plain {
		t.Error("a request without the path was copied")
	}
	var none *workPlace
	if none.request(req) != req || none.answer(&llm.Response{}) == nil {
		t.Error("a nil workPlace rewrote something")
	}
}
