package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tape"
)

// compareOffered compares what was recorded as offered (want: the tape's
// block with the changes of earlier entries, from file) with what the
// request offered (got), each part only when want records it. It returns the fields that
// differ (offered.system, offered.tools) and an explanation of each: a
// unified diff of the prompts; per tool, which of name, description and
// parameters changed, the parameters as a diff of their indented JSON.
func compareOffered(want, got *tape.Offered, file string) (fields []string, diff string) {
	if empty(want) {
		return nil, ""
	}
	system := want.System != nil && !slices.Equal(want.System, got.System)
	tools := want.Tools != nil && !sameTools(want.Tools, got.Tools)
	schema := want.ResponseSchema != nil && !sameSchema(want.ResponseSchema, got.ResponseSchema)
	var params []string
	if want.Params != nil && !sameParams(want.Params, got.Params) {
		for _, k := range slices.Sorted(maps.Keys(joinKeys(want.Params, got.Params))) {
			if w, g := want.Params[k], got.Params[k]; (w == nil) != (g == nil) || !jsonvalue.SameText(w, g) {
				params = append(params, k)
			}
		}
	}
	if !system && !tools && !schema && len(params) == 0 {
		return nil, ""
	}
	var b strings.Builder
	at := ""
	switch {
	case want.Line > 0 && file != "":
		at = fmt.Sprintf(" (recorded at %s:%d)", file, want.Line)
	case want.Line > 0:
		at = fmt.Sprintf(" (recorded at line %d)", want.Line)
	}
	if system {
		fields = append(fields, "offered.system")
		fmt.Fprintf(&b, "offered.system%s: the system prompt changed:\n", at)
		b.WriteString(divergenceDiff(systemText(want.System), systemText(got.System)))
	}
	if tools {
		fields = append(fields, "offered.tools")
		fmt.Fprintf(&b, "offered.tools%s: the tools changed:\n", at)
		b.WriteString(toolsDiff(want.Tools, got.Tools))
	}
	if schema {
		fields = append(fields, "offered.response_schema")
		fmt.Fprintf(&b, "offered.response_schema%s: the response schema changed, as JSON:\n", at)
		b.WriteString(divergenceDiff(responseSchemaText(want.ResponseSchema), responseSchemaText(got.ResponseSchema)))
	}
	for _, k := range params {
		fields = append(fields, "offered.params."+k)
		fmt.Fprintf(&b, "offered.params.%s%s: the request parameter %s changed:\n", k, at, k)
		b.WriteString(divergenceDiff(paramText(want.Params[k]), paramText(got.Params[k])))
	}
	return fields, b.String()
}

// joinKeys returns the set of keys of a and b.
func joinKeys(a, b map[string]json.RawMessage) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// paramText renders a parameter's value for a diff: its JSON, or "(not
// sent)".
func paramText(raw json.RawMessage) string {
	if raw == nil {
		return "(not sent)\n"
	}
	return string(raw) + "\n"
}

// responseSchemaText renders a response schema for a diff: its indented
// JSON, or "(none)" when the request asked for none.
func responseSchemaText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)\n"
	}
	return schemaText(raw)
}

// systemText renders system prompts for a diff: one as its text, several
// each under a "# system[i]" line, none as "(no system prompt)".
func systemText(prompts []string) string {
	if len(prompts) == 0 {
		return "(no system prompt)\n"
	}
	if len(prompts) == 1 {
		return withNewline(prompts[0])
	}
	var b strings.Builder
	for i, p := range prompts {
		fmt.Fprintf(&b, "# system[%d]\n%s", i, withNewline(p))
	}
	return b.String()
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// toolsDiff explains how two sets of tool definitions differ, tool by
// tool in the recorded order, then the tools added: a tool removed and one
// added with the same description and parameters is a renamed tool.
func toolsDiff(want, got []llm.ToolDefinition) string {
	var b strings.Builder
	byName := func(ts []llm.ToolDefinition, name string) int {
		return slices.IndexFunc(ts, func(t llm.ToolDefinition) bool { return t.Name == name })
	}
	var removed, added []llm.ToolDefinition
	count := func(ts []llm.ToolDefinition, name string) int {
		n := 0
		for _, t := range ts {
			if t.Name == name {
				n++
			}
		}
		return n
	}
	for _, w := range want {
		if i := byName(got, w.Name); i >= 0 {
			toolDiff(&b, w, got[i])
			if n, r := count(got, w.Name), count(want, w.Name); n != r {
				fmt.Fprintf(&b, "  tool %s: offered %s (recorded %s)\n", w.Name, times(n), times(r))
			}
		} else {
			removed = append(removed, w)
		}
	}
	for _, g := range got {
		if byName(want, g.Name) < 0 {
			added = append(added, g)
		}
	}
	for _, r := range removed {
		i := slices.IndexFunc(added, func(a llm.ToolDefinition) bool {
			return a.Description == r.Description && jsonvalue.SameText(a.Parameters, r.Parameters)
		})
		if i >= 0 {
			fmt.Fprintf(&b, "  tool %s: name changed to %s\n", r.Name, added[i].Name)
			added = slices.Delete(added, i, i+1)
			continue
		}
		fmt.Fprintf(&b, "  tool %s: removed (recorded, no longer offered)\n", r.Name)
	}
	for _, a := range added {
		fmt.Fprintf(&b, "  tool %s: added (offered, not recorded)\n", a.Name)
	}
	return b.String()
}

// times says n as a count of times: "once", "2 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// toolDiff explains how one tool's description and parameters changed.
func toolDiff(b *strings.Builder, want, got llm.ToolDefinition) {
	if want.Description != got.Description {
		fmt.Fprintf(b, "  tool %s: description changed:\n", want.Name)
		b.WriteString(indentLines(divergenceDiff(withNewline(want.Description), withNewline(got.Description)), "    "))
	}
	if !jsonvalue.SameText(want.Parameters, got.Parameters) {
		fmt.Fprintf(b, "  tool %s: parameters (schema) changed, as JSON:\n", want.Name)
		b.WriteString(indentLines(divergenceDiff(schemaText(want.Parameters), schemaText(got.Parameters)), "    "))
	}
}

// schemaText renders a schema for a diff: indented JSON with sorted keys,
// or the text as it is when it is not JSON, "(none)" when empty.
func schemaText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)\n"
	}
	v, err := jsonvalue.Decode(raw)
	if err != nil {
		return withNewline(string(raw))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return withNewline(string(raw))
	}
	return buf.String()
}

// indentLines prefixes each line of s with pad.
func indentLines(s, pad string) string {
	if s == "" {
		return ""
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "")
}

// compareNew compares the recorded new messages with those the request
// added (nil when it rewrote the conversation instead of extending it).
func compareNew(want, got []llm.Message, whole []llm.Message) (fields []string, diff string) {
	if want == nil || got != nil && slices.EqualFunc(want, got, equalMessage) {
		return nil, ""
	}
	w := (&tape.RequestSummary{New: want}).String()
	var g string
	if got == nil {
		g = "# the request does not extend the previous request's conversation; it holds:\n" +
			(&tape.RequestSummary{Messages: whole}).String()
	} else {
		g = (&tape.RequestSummary{New: got}).String()
	}
	return []string{"new"}, "new: the messages added since the previous request changed:\n" + udiffOrNote(w, g)
}

func udiffOrNote(w, g string) string {
	if d := divergenceDiff(w, g); d != "" {
		return d
	}
	return "(they render the same; they differ in characters YAML does not show)\n"
}
