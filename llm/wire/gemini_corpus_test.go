package wire_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// corpusExchange is one recorded request and its answer.
type corpusExchange struct {
	file   string
	path   string // the request's URL path
	query  string
	body   []byte
	status int
	header http.Header
	answer []byte
}

// geminiCorpus reads the recorded Gemini traffic of ../shared/corpora
// (httprr traces and go-vcr cassettes), skipping the test when it is
// absent.
func geminiCorpus(t *testing.T) []corpusExchange {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpora", "wire", "gemini")
	if _, err := os.Stat(dir); err != nil {
		dir = filepath.Join("..", "..", "..", "shared", "corpora", "wire", "gemini")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) == 0 {
		t.Skip("the corpus of recorded Gemini traffic (../shared/corpora/wire/gemini) is absent")
	}
	var out []corpusExchange
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(f, ".httprr"):
			ex, err := readHTTPRR(b)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for i := range ex {
				ex[i].file = filepath.Base(f)
			}
			out = append(out, ex...)
		case strings.HasSuffix(f, ".yaml"):
			ex, err := readCassette(b)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for i := range ex {
				ex[i].file = filepath.Base(f)
			}
			out = append(out, ex...)
		}
	}
	return out
}

// readHTTPRR reads an httprr trace: "httprr trace v1", then per exchange
// a line "N M" and N bytes of request, M bytes of response.
func readHTTPRR(b []byte) ([]corpusExchange, error) {
	header, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok || string(header) != "httprr trace v1" {
		return nil, fmt.Errorf("not an httprr trace")
	}
	var out []corpusExchange
	for len(rest) > 0 {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		var n, m int
		if _, err := fmt.Sscanf(string(line), "%d %d", &n, &m); err != nil || n+m > len(after) {
			return nil, fmt.Errorf("bad record header %q", line)
		}
		req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(after[:n])))
		if err != nil {
			return nil, err
		}
		body, _ := io.ReadAll(req.Body)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(after[n:n+m])), req)
		if err != nil {
			return nil, err
		}
		answer, _ := io.ReadAll(resp.Body)
		out = append(out, corpusExchange{path: req.URL.Path, query: req.URL.RawQuery, body: body, status: resp.StatusCode, header: resp.Header, answer: answer})
		rest = after[n+m:]
	}
	return out, nil
}

// readCassette reads a go-vcr cassette (version 2).
func readCassette(b []byte) ([]corpusExchange, error) {
	var c struct {
		Interactions []struct {
			Request struct {
				Body string `yaml:"body"`
				URL  string `yaml:"url"`
			} `yaml:"request"`
			Response struct {
				Body    string              `yaml:"body"`
				Headers map[string][]string `yaml:"headers"`
				Code    int                 `yaml:"code"`
			} `yaml:"response"`
		} `yaml:"interactions"`
	}
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	var out []corpusExchange
	for _, it := range c.Interactions {
		path, query, _ := strings.Cut(strings.TrimPrefix(it.Request.URL, "https://"), "?")
		path = path[strings.Index(path, "/"):]
		out = append(out, corpusExchange{path: path, query: query, body: []byte(it.Request.Body), status: it.Response.Code,
			header: http.Header(it.Response.Headers), answer: []byte(it.Response.Body)})
	}
	return out, nil
}

// TestGeminiCorpusRequests decodes every request of the recorded traffic
// (the Gemini API and Vertex, generative-ai-go's and genai's and ADK's
// bodies): each must decode, name the model of its path, and hold the
// system instruction, tools and turns it sent.
func TestGeminiCorpusRequests(t *testing.T) {
	n := 0
	for _, ex := range geminiCorpus(t) {
		if len(ex.body) == 0 {
			continue
		}
		c, err := wire.Decode(ex.path, ex.body)
		if err != nil {
			t.Errorf("%s %s: %v", ex.file, ex.path, err)
			continue
		}
		n++
		if c.Model == "" || !strings.Contains(ex.path, "/models/"+c.Model+":") {
			t.Errorf("%s: model %q from %s", ex.file, c.Model, ex.path)
		}
		if c.Stream != strings.Contains(ex.path, ":streamGenerateContent") {
			t.Errorf("%s: stream %v for %s", ex.file, c.Stream, ex.path)
		}
		if bytes.Contains(ex.body, []byte(`"systemInstruction"`)) && (len(c.Request.Messages) == 0 || c.Request.Messages[0].Role != "system" || c.Request.Messages[0].Content == "") {
			t.Errorf("%s: no system message decoded from %s", ex.file, ex.body)
		}
		var generic struct {
			Tools []struct {
				FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(ex.body, &generic); err != nil {
			t.Fatal(err)
		}
		declared := 0
		for _, tl := range generic.Tools {
			declared += len(tl.FunctionDeclarations)
		}
		if len(c.Request.Tools) != declared {
			t.Errorf("%s: %d tools decoded, the body declares %d", ex.file, len(c.Request.Tools), declared)
		}
		calls, results := 0, 0
		for _, m := range c.Request.Messages {
			calls += len(m.ToolCalls)
			if m.Role == "tool" {
				results++
			}
		}
		if want := bytes.Count(ex.body, []byte(`"functionCall":`)); calls != want {
			t.Errorf("%s: %d calls decoded, the body holds %d", ex.file, calls, want)
		}
		if want := bytes.Count(ex.body, []byte(`"functionResponse":`)); results != want {
			t.Errorf("%s: %d results decoded, the body holds %d", ex.file, results, want)
		}
	}
	t.Logf("%d recorded requests decoded", n)
}
