package textcalls

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

// corpusPath returns the llama.cpp tool-call corpus, outside the module: under
// $TAPELOOP_CORPORA when set, else ../shared/corpora next to the repository.
// Tests that read it skip, saying so, when it is absent.
func corpusPath() string {
	const rel = "tool-call-text/llama.cpp.jsonl"
	if dir := os.Getenv("TAPELOOP_CORPORA"); dir != "" {
		return filepath.Join(dir, rel)
	}
	// The repository may be checked out a level deeper (a worktree next
	// to it): look in shared/corpora beside each of the package's parents.
	dir := "../../../shared/corpora"
	for up := "../../.."; len(up) < 20; up += "/.." {
		if d := filepath.Join(up, "shared", "corpora"); exists(filepath.Join(d, rel)) {
			dir = d
			break
		}
	}
	return filepath.Join(dir, rel)
}

// exists reports whether path names a file.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

type corpusRecord struct {
	Line   int
	Family string `json:"family"`
	Text   string `json:"text"`
	Calls  []struct {
		Name      string `json:"name"`
		Arguments any    `json:"arguments"`
	} `json:"calls"`
	Content   string   `json:"content"`
	Tools     []string `json:"tools"`
	IsPartial bool     `json:"is_partial"`
}

func loadCorpus(tb testing.TB) []corpusRecord {
	tb.Helper()
	path := corpusPath()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("SKIP: corpus %s not found; the shared corpora are not on this machine (set TAPELOOP_CORPORA to the corpora directory to measure against them)", path)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []corpusRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for n := 1; sc.Scan(); n++ {
		var r corpusRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
		r.Line = n
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// llamaCppSchemas are the parameter types of the tools that llama.cpp's
// tests/test-chat.cpp offers, transcribed (types only) so that untyped XML values
// are coerced as the engine's tests expect.
var llamaCppSchemas = map[string]string{
	"special_function":          `{"type":"object","properties":{"arg1":{"type":"integer"}}}`,
	"special_function_with_opt": `{"type":"object","properties":{"arg1":{"type":"integer"},"arg2":{"type":"integer"}}}`,
	"python":                    `{"type":"object","properties":{"code":{"type":"string"}}}`,
	"html":                      `{"type":"object","properties":{"markup":{"type":"string"}}}`,
	"edit":                      `{"type":"object","properties":{"filename":{"type":"string"},"oldString":{"type":"string"},"newString":{"type":"string"},"replaceAll":{"type":"boolean"}}}`,
	"todo_list":                 `{"type":"object","properties":{"todos":{"type":"array"}}}`,
	"magic":                     `{"type":"object","properties":{"name":{"type":"string"},"ref":{"type":"string"}}}`,
	"magic_int":                 `{"type":"object","properties":{"ref":{"type":"integer"},"name":{"type":"string"}}}`,
	"amount":                    `{"type":"object","properties":{"orig":{"type":"number"}}}`,
	"toggle":                    `{"type":"object","properties":{"enabled":{"type":"boolean"}}}`,
	"set_config":                `{"type":"object","properties":{"config":{"type":"object"}}}`,
	"set_nullable":              `{"type":"object","properties":{"value":{"type":["string","null"]}}}`,
	"set_nullable_int":          `{"type":"object","properties":{"count":{"type":["integer","null"]}}}`,
	"set_nullable_str":          `{"type":"object","properties":{"name":{"type":["string","null"]}}}`,
	"set_nullable_str_nf":       `{"type":"object","properties":{"name":{"type":["string","null"]}}}`,
	"imaginary_number":          `{"type":"object","properties":{"number":{"type":"object","properties":{"real":{"type":"number"},"imaginary":{"type":"number"}}}}}`,
	"quoted_unquoted":           `{"type":"object","properties":{"quoted":{"type":"string"},"unquoted":{"type":"string"}}}`,
	"string_param":              `{"type":"object","properties":{"text":{"type":"string"}}}`,
	"tool_2req_4opt":            `{"type":"object","properties":{"req1":{"type":"string"},"req2":{"type":"integer"},"opt1":{"type":"string"},"opt2":{"type":"integer"},"opt3":{"type":"string"},"opt4":{"type":"integer"}}}`,
	"tool_2req_5opt":            `{"type":"object","properties":{"req1":{"type":"string"},"req2":{"type":"integer"},"opt1":{"type":"string"},"opt2":{"type":"integer"},"opt3":{"type":"string"},"opt4":{"type":"integer"},"opt5":{"type":"string"}}}`,
	"get_time":                  `{"type":"object","properties":{"city":{"type":"string"}}}`,
	"get_weather":               `{"type":"object","properties":{"city":{"type":"string"}}}`,
	"execute_command":           `{"type":"object","properties":{"command":{"type":"string"},"cwd":{"type":"string"},"timeout":{"type":"integer"}}}`,
	"run_in_terminal":           `{"type":"object","properties":{"command":{"type":"string"}}}`,
	"set_unit":                  `{"type":"object","properties":{"unit":{"type":"string"}}}`,
}

// corpusTools offers the record's tools: by name only, or with the llama.cpp
// schemas.
func corpusTools(names []string, withSchemas bool) []llm.ToolDefinition {
	var out []llm.ToolDefinition
	for _, n := range names {
		d := llm.ToolDefinition{Name: n}
		if s, ok := llamaCppSchemas[n]; ok && withSchemas {
			d.Parameters = json.RawMessage(s)
		}
		out = append(out, d)
	}
	return out
}

// matches reports whether res has exactly the record's calls, arguments compared
// as decoded JSON values, in order.
func matches(r corpusRecord, res Result) bool {
	if len(res.Calls) != len(r.Calls) {
		return false
	}
	for i, want := range r.Calls {
		got := res.Calls[i]
		if got.Name != want.Name {
			return false
		}
		var g any
		if json.Unmarshal([]byte(got.Arguments), &g) != nil {
			return false
		}
		w := want.Arguments
		if s, ok := w.(string); ok { // arguments as JSON text
			if json.Unmarshal([]byte(s), &w) != nil {
				return false
			}
		}
		if !reflect.DeepEqual(g, w) {
			return false
		}
	}
	return true
}

type tally struct{ pass, total int }

func (t *tally) add(ok bool) {
	t.total++
	if ok {
		t.pass++
	}
}

func (t tally) String() string {
	if t.total == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", t.pass, t.total, 100*float64(t.pass)/float64(t.total))
}

func (t tally) rate() float64 {
	if t.total == 0 {
		return 1
	}
	return float64(t.pass) / float64(t.total)
}

// allToolNames is the union of the tools that the corpus's records offer.
func allToolNames(recs []corpusRecord) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range recs {
		for _, n := range r.Tools {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// TestCorpus measures Extract against llama.cpp's own expectations, offering each
// record its own tools and then every tool of the corpus: most records without
// calls offer no tools, where Extract stops at once, so only the second makes
// their floor say something.
//
// Partial records (is_partial: a response cut off mid-call, whose expected
// arguments are unparsed text) are reported but excluded from the floors: this
// package deliberately extracts no call that was cut off, so it cannot match them;
// the test checks that it extracts nothing from them instead. The records'
// enable_thinking and reasoning_format are not read: Extract ignores calls in
// reasoning whatever they say, which is what every such record expects.
func TestCorpus(t *testing.T) {
	recs := loadCorpus(t)
	all := allToolNames(recs)
	for _, cfg := range []struct {
		withSchemas, allTools bool
	}{{true, false}, {false, false}, {true, true}, {false, true}} {
		var pos, posAll, neg, negAll, partialEmpty, kept tally
		for _, r := range recs {
			names := r.Tools
			if cfg.allTools {
				names = all
			}
			res := Extract(r.Text, corpusTools(names, cfg.withSchemas), nil)
			ok := matches(r, res)
			if r.IsPartial {
				partialEmpty.add(len(res.Calls) == 0)
			}
			if len(r.Calls) > 0 {
				posAll.add(ok)
				if !r.IsPartial {
					pos.add(ok)
				}
				if ok && !r.IsPartial {
					kept.add(keptText(r.Content, res.Content))
				}
			} else {
				negAll.add(ok)
				if !r.IsPartial {
					neg.add(ok)
				}
			}
			if !ok && !r.IsPartial && cfg.withSchemas {
				t.Logf("line %d %s (all tools %v): got %s %+v, want %+v\n\t%q", r.Line, r.Family, cfg.allTools, res.Envelope, res.Calls, r.Calls, r.Text)
			}
		}
		label := fmt.Sprintf("schemas=%v", cfg.withSchemas)
		if cfg.allTools {
			label += " tools=all"
		}
		t.Logf("%s: with calls %s (all incl. partial %s); without calls %s (all %s); partial records left alone %s; visible text kept beside the calls %s",
			label, pos, posAll, neg, negAll, partialEmpty, kept)
		if kept.rate() < 1 {
			t.Errorf("%s: visible text around the calls lost: kept in %s", label, kept)
		}
		if partialEmpty.rate() < 1 {
			t.Errorf("%s: partial records: a cut-off call was extracted (%s left alone)", label, partialEmpty)
		}
		if cfg.withSchemas {
			if pos.rate() < 0.99 {
				t.Errorf("%s: with calls: %s, below the floor", label, pos)
			}
			if neg.rate() < 1 {
				t.Errorf("%s: without calls: %s, below the floor", label, neg)
			}
		} else if pos.rate() < 0.84 || neg.rate() < 1 {
			// Without schemas untyped XML values stay strings ("1", not 1).
			t.Errorf("%s: with calls %s, without calls %s, below the floor", label, pos, neg)
		}
	}
}

// keptText reports whether the visible text the engine expects beside the
// calls is all in got, space collapsed: Extract keeps reasoning in Content,
// where the engine splits it out, so got may hold more.
func keptText(want, got string) bool {
	return strings.Contains(strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " "))
}

func BenchmarkCorpus(b *testing.B) {
	recs := loadCorpus(b)
	var n int64
	for _, r := range recs {
		n += int64(len(r.Text))
	}
	tools := make([][]llm.ToolDefinition, len(recs))
	for i, r := range recs {
		tools[i] = corpusTools(r.Tools, true)
	}
	b.SetBytes(n)
	b.ResetTimer()
	for b.Loop() {
		for i, r := range recs {
			Extract(r.Text, tools[i], nil)
		}
	}
}
