package otelproof

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3/option"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/tapeloop/tapeloop/bridge"
	"github.com/tapeloop/tapeloop/evalrun"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/llm"
)

// scriptedModel answers as a model would the request "cancel order B2":
// it looks the order up, cancels it, and says so.
func scriptedModel() http.Handler {
	var mu sync.Mutex
	n := 0
	return bridge.Handler(llm.ModelFunc(func(_ context.Context, req *llm.Request) (*llm.Response, error) {
		mu.Lock()
		defer mu.Unlock()
		n++
		usage := llm.Usage{InputTokens: 120 + 10*n, OutputTokens: 12}
		switch n {
		case 1:
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_L1", Name: "lookup_order", Arguments: `{"id":"B2"}`}), FinishReason: "tool_calls", Usage: usage}, nil
		case 2:
			return &llm.Response{Message: llm.AssistantMessage("", llm.ToolCall{ID: "call_C1", Name: "cancel_order", Arguments: `{"id":"B2"}`}), FinishReason: "tool_calls", Usage: usage}, nil
		}
		return &llm.Response{Message: llm.AssistantMessage("Order B2 is cancelled."), FinishReason: "stop", Usage: usage}, nil
	}), nil)
}

// collector receives OTLP/HTTP trace exports (protobuf) and writes each as
// a line of OTLP JSON, as the Collector's file exporter does.
func collector(t *testing.T, path string) *httptest.Server {
	var mu sync.Mutex
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err == nil {
			err = proto.Unmarshal(body, &req)
		}
		if err != nil {
			t.Errorf("collector: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		line, err := protojson.Marshal(&req)
		if err != nil {
			t.Errorf("collector: %v", err)
		}
		mu.Lock()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.Write(append(line, '\n'))
			f.Close()
		}
		mu.Unlock()
		if err != nil {
			t.Errorf("collector: %v", err)
		}
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
}

// traceRun runs the agent once against the scripted model, traced with
// content capture on or off, and returns the OTLP JSON lines written.
func traceRun(t *testing.T, capture bool) string {
	t.Helper()
	ctx := context.Background()
	model := httptest.NewServer(scriptedModel())
	defer model.Close()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	col := collector(t, path)
	defer col.Close()
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(col.URL+"/v1/traces"))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tracer := tp.Tracer("otelproof")
	a := New(tracer, option.WithBaseURL(model.URL+"/v1"), option.WithAPIKey("test-key"), option.WithMaxRetries(0),
		option.WithMiddleware(Middleware(tracer, capture)))
	answer, err := a.Run(ctx, "Please cancel order B2.")
	if err != nil || answer != "Order B2 is cancelled." || a.Orders["B2"] != "cancelled" {
		t.Fatalf("the live run: %q, %v, orders %v", answer, err, a.Orders)
	}
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	return path
}

// agent runs the orders agent with instruction on a bridged run.
func agent(instruction string) bridge.Agent {
	return func(ctx context.Context, r *bridge.Run) error {
		a := New(nil, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient), option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
		a.Instruction = instruction
		answer, err := a.Run(ctx, r.Input[len(r.Input)-1].Content)
		r.Final(answer)
		return err
	}
}

func evalrunMain(t *testing.T, instruction string, args ...string) (int, string) {
	t.Helper()
	return evalrunWith(t, agent(instruction), args...)
}

func evalrunWith(t *testing.T, a bridge.Agent, args ...string) (int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := evalrun.Main(context.Background(), args, &out, &errb, &evalrun.Options{Agents: map[string]harness.Runner{"orders": bridge.Runner(a, nil)}})
	return code, out.String() + errb.String()
}

// TestTraceToRegressionTest traces a live run, imports the trace, and
// replays the scenario through the same agent; the agent with another
// instruction fails closed.
func TestTraceToRegressionTest(t *testing.T) {
	trace := traceRun(t, true)
	dir := filepath.Join(t.TempDir(), "scenarios")
	code, out := evalrunMain(t, Instruction, "import", "--agent", "orders", "--out", dir, trace)
	if code != 0 || !strings.Contains(out, "3 model calls, gen_ai)") || !strings.Contains(out, "PASS  golden written") {
		t.Fatalf("import: exit %d\n%s", code, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "trace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"agent:\n    go: orders", "offered:\n  system: " + Instruction, "name: cancel_order", "tool_calls: [lookup_order, cancel_order]"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the scenario lacks %q:\n%s", want, data)
		}
	}
	if code, out := evalrunMain(t, Instruction, "replay", dir); code != 0 {
		t.Errorf("replay with the same agent: exit %d\n%s", code, out)
	}
	code, out = evalrunMain(t, "You manage the user's orders.", "replay", dir)
	if code != 1 || !strings.Contains(out, "offered.system") {
		t.Errorf("replay with another instruction: exit %d, want 1 naming offered.system\n%s", code, out)
	}
	// The agent's own tool answering otherwise (B2 already shipped) fails
	// closed too: its result is not the one the model was sent.
	shipped := func(ctx context.Context, r *bridge.Run) error {
		a := New(nil, option.WithBaseURL(r.OpenAIBaseURL), option.WithHTTPClient(r.HTTPClient), option.WithAPIKey(r.APIKey), option.WithMaxRetries(0))
		a.Orders["B2"] = "shipped"
		answer, err := a.Run(ctx, r.Input[len(r.Input)-1].Content)
		r.Final(answer)
		return err
	}
	code, out = evalrunWith(t, shipped, "replay", dir)
	if code != 1 || !strings.Contains(out, "order B2 is shipped") {
		t.Errorf("replay with another tool result: exit %d, want 1 showing the result\n%s", code, out)
	}
}

// TestTraceWithoutContentIsRefused traces the run with capture off: the
// import is refused, saying how to turn capture on.
func TestTraceWithoutContentIsRefused(t *testing.T) {
	trace := traceRun(t, false)
	dir := filepath.Join(t.TempDir(), "scenarios")
	code, out := evalrunMain(t, Instruction, "import", "--agent", "orders", "--out", dir, trace)
	if code != 2 || !strings.Contains(out, "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true") {
		t.Fatalf("exit %d, want 2 and the capture setting\n%s", code, out)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("something was written: %v", err)
	}
}
