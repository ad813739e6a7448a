package textcalls

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/repair"
)

// MaxCallsPerMessage is the most calls Extract takes from one message's text:
// llm.MaxCallsPerResponse, the most an agent loop takes from one response. A
// text whose envelope holds more calls (counting those naming a tool not
// offered) is refused, not cut short: Extract returns no calls and an Err
// matching llm.ErrTooManyCalls, and keeps no more than that many candidates
// while it reads the text.
const MaxCallsPerMessage = llm.MaxCallsPerResponse

// Result is what Extract found in a response's text.
type Result struct {
	// Calls are the extracted calls, in the order written; nil when none.
	Calls []Call
	// Content is the text with the matched envelopes removed, trimmed.
	Content string
	// Envelope names the envelope that matched (see the package doc); "" when none.
	Envelope string
	// Err is non-nil when the text was refused: its envelope (named by
	// Envelope) holds more than MaxCallsPerMessage calls. Calls is then nil
	// and Content the text unchanged.
	Err error
}

// Call is one extracted tool call.
type Call struct {
	// Name is the offered tool's name.
	Name string
	// Arguments is canonical JSON object text (repaired and coerced), never empty.
	Arguments string
	// Fixes lists the repair fixes applied to the arguments; nil when none.
	Fixes []string
}

// Options tune Extract. A nil *Options or the zero value detects everything from
// the text.
type Options struct {
	// Family is an optional hint: an envelope name (e.g. "hermes") or a model name
	// containing a family ("Qwen3-Coder", "deepseek-r1"); its envelope is tried
	// first. Unknown or empty means no hint.
	Family string
	// Families are envelopes the caller declares, tried in order before the
	// known ones (and before the Family hint). A declaration that fails
	// Family.Check is skipped: check them where they are read, to report
	// the file and key.
	Families []Family
	// Formats, when not empty, are the only envelopes tried: names of
	// known envelopes (Envelopes) or of Families. A call written in any
	// other format is text. Empty means every known and declared one.
	Formats []string
}

// Extractor adapts Extract to the agent loop's text-call hook. Its zero value is
// ready to use.
type Extractor struct {
	// Options are passed to Extract.
	Options Options
}

// ExtractCalls returns the calls written in content as llm.ToolCalls with empty IDs
// (the loop assigns them), the remaining content and the envelope's name; err is
// Result.Err (more than MaxCallsPerMessage calls), which ends an agent run.
func (x *Extractor) ExtractCalls(content string, tools []llm.ToolDefinition) (calls []llm.ToolCall, remaining, envelope string, err error) {
	var opts Options
	if x != nil {
		opts = x.Options
	}
	res := Extract(content, tools, &opts)
	if res.Err != nil {
		return nil, content, res.Envelope, res.Err
	}
	for _, c := range res.Calls {
		calls = append(calls, llm.ToolCall{Name: c.Name, Arguments: c.Arguments})
	}
	return calls, res.Content, res.Envelope, nil
}

// Extract returns the tool calls written as text in content, among the offered
// tools. With no tools offered (nil or empty) nothing is extracted. When nothing
// matches, it returns the content unchanged, no calls and no envelope.
func Extract(content string, tools []llm.ToolDefinition, opts *Options) Result {
	none := Result{Content: content}
	if len(tools) == 0 || strings.TrimSpace(content) == "" {
		return none
	}
	src := newSource(content, tools)
	order := envelopeOrder
	if opts != nil && opts.Family != "" {
		order = withHint(order, opts.Family)
	}
	if opts != nil && len(opts.Families) > 0 {
		var declared []envelope
		for _, fam := range opts.Families {
			if fam.Check() == nil {
				declared = append(declared, fam.envelope())
			}
		}
		order = append(declared, order...)
	}
	if opts != nil && len(opts.Formats) > 0 {
		order = slices.DeleteFunc(slices.Clone(order), func(e envelope) bool { return !slices.Contains(opts.Formats, e.name) })
	}
	// rejected holds the spans of candidates an envelope found and dropped: no
	// later envelope may read a call from the same text.
	var rejected []span
	for _, env := range order {
		f := env.find(src)
		if len(f.calls) > MaxCallsPerMessage {
			err := fmt.Errorf("%w: the text holds more than %d calls (%s), more than one message may hold", llm.ErrTooManyCalls, MaxCallsPerMessage, env.name)
			return Result{Content: content, Envelope: env.name, Err: err}
		}
		f = f.outside(rejected)
		var quoted []span
		f, quoted = f.inPlace(content)
		rejected = append(rejected, quoted...)
		calls, dropped := src.accept(f.calls)
		if len(calls) == 0 {
			for _, k := range dropped {
				rejected = append(rejected, f.spans[k])
			}
			continue
		}
		for k, sp := range f.spans {
			// Laguna-style templates wrap a call in <user>…</user>.
			f.spans[k] = wrapSpan(content, sp, "<user>", "</user>")
		}
		return Result{Calls: calls, Content: cut(content, f.spans), Envelope: env.name}
	}
	return none
}

// envelope is one recognised envelope: its name and its finder.
type envelope struct {
	name string
	find func(s *source) found
}

// found is what a finder saw: candidate calls and the spans of text they occupied.
type found struct {
	calls []rawCall
	spans []span
}

// add keeps a candidate; past MaxCallsPerMessage+1 it keeps none (Extract
// refuses the envelope), so a huge text costs no more than that many.
func (f *found) add(c rawCall, sp span) {
	if len(f.calls) > MaxCallsPerMessage {
		return
	}
	f.calls = append(f.calls, c)
	f.spans = append(f.spans, sp)
}

// outside returns f without the candidates whose spans overlap one of sp.
func (f found) outside(sp []span) found {
	if len(sp) == 0 {
		return f
	}
	var out found
	for k, c := range f.calls {
		if !overlaps(f.spans[k], sp) {
			out.calls = append(out.calls, c)
			out.spans = append(out.spans, f.spans[k])
		}
	}
	out.spans = append(out.spans, f.spans[len(f.calls):]...)
	return out
}

// inPlace returns f without the candidates that are not where a chat template
// puts a call, and the spans of those it dropped: a call quoted in the text
// ("…" or '…' right around it), on a blockquote line (> …), or in the middle
// of a sentence (a word before it on its line and a lower-case word right
// after it on the same line) is a mention or an example, not a call.
func (f found) inPlace(text string) (found, []span) {
	var out found
	var dropped []span
	for k, c := range f.calls {
		if sp := f.spans[k]; mentioned(text, sp) {
			dropped = append(dropped, sp)
			continue
		}
		out.calls = append(out.calls, c)
		out.spans = append(out.spans, f.spans[k])
	}
	if len(dropped) == 0 {
		return f, nil
	}
	out.spans = append(out.spans, f.spans[len(f.calls):]...)
	return out, dropped
}

// mentioned reports whether the call at sp is quoted, blockquoted or inside a
// sentence (see found.inPlace).
func mentioned(text string, sp span) bool {
	if sp.start < 0 || sp.start >= len(text) || sp.end > len(text) || sp.end <= sp.start {
		return false
	}
	lineStart := strings.LastIndexByte(text[:sp.start], '\n') + 1
	before := text[lineStart:sp.start]
	lineEnd := len(text)
	if i := strings.IndexByte(text[sp.end:], '\n'); i >= 0 {
		lineEnd = sp.end + i
	}
	after := text[sp.end:lineEnd]
	for _, q := range []string{`"`, "'", "“"} {
		if strings.HasSuffix(before, q) && (strings.HasPrefix(after, q) || q == "“" && strings.HasPrefix(after, "”")) {
			return true
		}
	}
	if b := strings.TrimLeft(before, " \t"); strings.HasPrefix(b, ">") {
		return true
	}
	if after != "" && strings.ContainsRune(".,;!?)", rune(after[0])) {
		return true // punctuation glued after it: the call is part of a sentence
	}
	a := strings.TrimLeft(after, " \t")
	if a != "" && len(a) < len(after) && 'a' <= a[0] && a[0] <= 'z' {
		return true // a sentence goes on after it: "<call> is what I would send"
	}
	return explainedAfter(text, lineEnd)
}

// explainedAfter reports whether the first non-blank line after lineEnd
// speaks of what came before as an example: it starts with "this", "that"
// or "the above" and holds an example marker ("That's the syntax.", "This
// JSON shows the shape of a call.").
func explainedAfter(text string, lineEnd int) bool {
	rest := strings.TrimLeft(text[lineEnd:], " \t\r\n")
	if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
		rest = rest[:nl]
	}
	line := strings.ToLower(rest[:min(len(rest), 200)])
	if !strings.HasPrefix(line, "this") && !strings.HasPrefix(line, "that") && !strings.HasPrefix(line, "the above") {
		return false
	}
	return hasMarker([]byte(line)) || hasWord(line, "shows") || hasWord(line, "shape")
}

// hasWord reports whether the lower-cased line holds w as a whole word.
func hasWord(line, w string) bool {
	for i := 0; ; {
		k := strings.Index(line[i:], w)
		if k < 0 {
			return false
		}
		k += i
		end := k + len(w)
		if (k == 0 || !isWordChar(line[k-1])) && (end >= len(line) || !isWordChar(line[end])) {
			return true
		}
		i = k + 1
	}
}

// overlaps reports whether p overlaps one of sp.
func overlaps(p span, sp []span) bool {
	for _, q := range sp {
		if p.start < q.end && q.start < p.end {
			return true
		}
	}
	return false
}

// span is a half-open byte range of the text.
type span struct{ start, end int }

// rawCall is a candidate before validation: the name as written and the arguments
// as decoded value (map), JSON text to repair (string) or nil for none.
type rawCall struct {
	name    string
	args    any
	argsRaw bool // args is JSON text to repair
	untyped bool // string values came from an untyped envelope; coerce to schema
	cut     bool // the envelope was cut off with the response (no closing token)
	// needRequired: the engine refuses a call lacking a required argument.
	needRequired bool
	// refused: the envelope found the call but the engine would not take
	// it; it is dropped, and its text is read by no later envelope.
	refused bool
	fixes   []string // repair fixes already applied to the text the call came from
}

// envelopeOrder is the priority in which envelopes are tried: special tokens
// first, plain tags next, bare text last.
var envelopeOrder = []envelope{
	{"gpt_oss", findHarmony},
	{"kimi_k2", findKimi},
	{"deepseek", findDeepSeek},
	{"deepseek_dsml", findDSML},
	{"step3", findStep3},
	{"atem", findAtem},
	{"inkling", findInkling},
	{"mistral", findMistral},
	{"llama_python_tag", findPythonTag},
	{"granite", findGranite},
	{"command_r", findCommandR},
	{"apertus", findApertus},
	{"gigachat", findGigaChat},
	{"gemma", findGemma},
	{"pythonic", findPythonic},
	{"olmo3", findOlmo3},
	{"seed_oss", findSeed},
	{"hunyuan", findHunyuan},
	{"minimax", findMiniMax},
	{"qwen3_coder_xml", findQwenXML},
	{"glm", findGLM},
	{"hermes", findHermes},
	{"internlm", findInternLM},
	{"longcat", findLongCat},
	{"granite_fc", findGraniteFC},
	{"nemotron", findNemotron},
	{"apriel", findApriel},
	{"forge", findForge},
	{"minicpm", findMiniCPM},
	{"functionary", findFunctionary},
	{"firefunction", findFirefunction},
	{"tool_calls_json", findToolCallsJSON},
	{"fenced_json", findFenced},
	{"bare_json", findBareJSON},
}

// familyHints maps words of a model or template name to an envelope.
var familyHints = []struct{ word, envelope string }{
	{"gpt-oss", "gpt_oss"}, {"kimi", "kimi_k2"}, {"v3.2", "deepseek_dsml"}, {"deepseek", "deepseek"},
	{"mistral", "mistral"}, {"devstral", "mistral"}, {"llama", "llama_python_tag"}, {"granite-20b", "granite_fc"}, {"granite", "granite"},
	{"command-r", "command_r"}, {"cohere", "command_r"}, {"gemma", "gemma"}, {"lfm", "pythonic"},
	{"olmo-3", "olmo3"}, {"olmo3", "olmo3"}, {"olmo", "pythonic"}, {"seed", "seed_oss"}, {"minimax", "minimax"}, {"coder", "qwen3_coder_xml"},
	{"glm", "glm"}, {"qwen", "hermes"}, {"hermes", "hermes"}, {"functionary", "functionary"},
	{"minicpm", "minicpm"}, {"forge", "forge"}, {"step3", "step3"}, {"step-3", "step3"},
	{"internlm", "internlm"}, {"inkling", "inkling"}, {"longcat", "longcat"}, {"phi-4", "firefunction"},
	{"hy3", "hunyuan"}, {"hy4", "hunyuan"}, {"hunyuan", "apriel"}, {"jamba", "apriel"},
}

func withHint(order []envelope, family string) []envelope {
	f := strings.ToLower(family)
	want := ""
	for _, e := range order {
		if e.name == f {
			want = f
		}
	}
	if want == "" {
		for _, h := range familyHints {
			if strings.Contains(f, h.word) {
				want = h.envelope
				break
			}
		}
	}
	if want == "" {
		return order
	}
	out := make([]envelope, 0, len(order))
	for _, e := range order {
		if e.name == want {
			out = append(out, e)
		}
	}
	for _, e := range order {
		if e.name != want {
			out = append(out, e)
		}
	}
	return out
}

// accept validates candidates: offered name, arguments repaired into an object
// without inventing, coerced when untyped. dropped lists the indexes of the
// candidates it refused.
func (s *source) accept(raw []rawCall) (out []Call, dropped []int) {
	for k, rc := range raw {
		if c, ok := s.acceptOne(rc); ok {
			out = append(out, c)
		} else {
			dropped = append(dropped, k)
		}
	}
	return out, dropped
}

// acceptOne validates one candidate.
func (s *source) acceptOne(rc rawCall) (Call, bool) {
	if rc.refused {
		return Call{}, false
	}
	name := strings.TrimSpace(rc.name)
	_, ok := s.schemas[name]
	if !ok {
		if n, found := strings.CutPrefix(name, "functions."); found {
			name = n
			_, ok = s.schemas[name]
		}
	}
	if !ok {
		return Call{}, false
	}
	var schema map[string]any
	if rc.untyped || rc.cut || rc.needRequired {
		schema = s.schema(name)
	}
	if (rc.cut || rc.needRequired) && missingRequired(schema, rc.args) {
		// Cut off before a required argument, or an engine that refuses a
		// call without one: no call.
		return Call{}, false
	}
	args, fixes, ok := canonicalArgs(rc, schema)
	if !ok || invents(fixes) {
		return Call{}, false
	}
	return Call{Name: name, Arguments: args, Fixes: fixes}, true
}

// inventive are the repair fixes that make JSON valid only by inventing what
// the model did not write: a value for a bare key, the end of a string or a
// literal, an array around several values, braces around key: value lines, a
// placeholder dropped, a value unwrapped from a call. An engine's parser
// returns no call for such text, and neither does Extract.
var inventive = []string{
	repair.FixMissingValue, repair.FixCloseString, repair.FixCloseLiteral, repair.FixMultipleValues,
	repair.FixMissingBraces, repair.FixEllipsis, repair.FixFunctionCall,
}

// invents reports whether fixes hold an inventive fix.
func invents(fixes []string) bool {
	for _, f := range fixes {
		if slices.Contains(inventive, f) {
			return true
		}
	}
	return false
}

// missingRequired reports whether args, decoded arguments, lack a property
// that the schema requires. Arguments still to be repaired are not judged.
func missingRequired(schema map[string]any, args any) bool {
	req, _ := schema["required"].([]any)
	if len(req) == 0 {
		return false
	}
	m, ok := args.(map[string]any)
	if !ok {
		return false
	}
	for _, r := range req {
		if k, _ := r.(string); k != "" {
			if _, present := m[k]; !present {
				return true
			}
		}
	}
	return false
}

// cut returns text without the spans, trimmed.
func cut(text string, spans []span) string {
	if len(spans) == 0 {
		return strings.TrimSpace(text)
	}
	sp := append([]span(nil), spans...)
	sort.Slice(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	var b strings.Builder
	pos := 0
	for _, p := range sp {
		if p.start < pos {
			p.start = pos
		}
		if p.end <= p.start || p.start > len(text) {
			continue
		}
		b.WriteString(text[pos:p.start])
		pos = min(p.end, len(text))
	}
	b.WriteString(text[pos:])
	return strings.TrimSpace(b.String())
}

// decodeSchema returns the tool's parameters schema as a map, or nil.
func decodeSchema(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}
