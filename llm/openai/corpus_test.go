package openai_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/internal/wiretest"
)

// corpusDir holds recorded traffic of real servers, outside the repository.
const corpusDir = "../../../shared/corpora/wire"

// TestCorpusReplay serves every recorded Chat Completions stream and body of
// the wire corpus, when it is present, and checks that each parses into a
// complete answer whose calls' arguments are the recorded text.
func TestCorpusReplay(t *testing.T) {
	var files []string
	for _, dir := range []string{"openai-compatible", "openai-chat"} {
		for _, pat := range []string{"*.chunks.txt", "*.sse", "*.json"} {
			m, _ := filepath.Glob(filepath.Join(corpusDir, dir, pat))
			files = append(files, m...)
		}
	}
	if len(files) == 0 {
		t.Skipf("no wire corpus at %s: skipping the replay of recorded traffic", corpusDir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rep := wiretest.Reply{Body: string(data)}
			noStream := strings.HasSuffix(f, ".json")
			switch {
			case strings.HasSuffix(f, ".chunks.txt"):
				// One chunk per line, framing and [DONE] not kept: frame them.
				var b strings.Builder
				sc := bufio.NewScanner(bytes.NewReader(data))
				sc.Buffer(nil, 1<<20)
				for sc.Scan() {
					if line := strings.TrimSpace(sc.Text()); line != "" {
						b.WriteString("data: " + line + "\n\n")
					}
				}
				b.WriteString("data: [DONE]\n\n")
				rep.Body = b.String()
				rep.Header = map[string]string{"Content-Type": "text/event-stream"}
			case strings.HasSuffix(f, ".sse"):
				rep.Header = map[string]string{"Content-Type": "text/event-stream"}
			}
			w := wiretest.New(t, rep)
			resp, err := w.Open(t, "openai-compatible/gpt-4.1-mini", "/v1", func(o *llm.OpenOptions) { o.NoStream = noStream }).Generate(t.Context(), conversation())
			if err != nil {
				t.Fatal(err)
			}
			if resp.FinishReason != llm.FinishStop && resp.FinishReason != llm.FinishToolCalls {
				t.Errorf("finish reason %q", resp.FinishReason)
			}
			if resp.FinishReason == llm.FinishToolCalls && len(resp.Message.ToolCalls) == 0 {
				t.Error("finish reason tool_calls without calls")
			}
			for _, c := range resp.Message.ToolCalls {
				if c.Name == "" || !json.Valid([]byte(c.Arguments)) || !bytes.Contains(data, []byte(jsonFragment(c.Arguments))) && !strings.HasSuffix(f, ".chunks.txt") && !strings.HasSuffix(f, ".sse") {
					t.Errorf("call %+v: no name, or arguments that are not the recorded text", c)
				}
			}
			if resp.Usage.InputTokens == 0 && bytes.Contains(data, []byte(`"prompt_tokens"`)) {
				t.Error("no usage")
			}
		})
	}
}

// jsonFragment returns s as it appears inside a JSON string.
func jsonFragment(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
