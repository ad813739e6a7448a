package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm"
)

type fileArgs struct {
	Path    string   `json:"path"`
	Count   int      `json:"count"`
	Force   bool     `json:"force,omitempty"`
	Options *options `json:"options,omitempty"`
	Lines   []int    `json:"lines,omitempty"`
}

type options struct {
	Depth int  `json:"depth"`
	Deep  bool `json:"deep,omitempty"`
}

// echoArgs returns a tool that answers with its arguments as executed.
func echoTool(t testing.TB, name string) Tool {
	t.Helper()
	tool, err := New(Spec{Name: name, Description: "echoes"}, func(ctx context.Context, in fileArgs) (*Result, error) {
		b, err := json.Marshal(in)
		return Success(string(b)), err
	})
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

type availabilityTool struct {
	Tool
	ok     bool
	reason string
}

func (a *availabilityTool) Available() (bool, string) { return a.ok, a.reason }

// strictRepairer fixes one thing: a trailing comma before the closing brace.
type strictRepairer struct{}

func (strictRepairer) Repair(raw string) (string, []string, error) {
	fixed := strings.Replace(raw, ",}", "}", 1)
	if fixed == raw || !json.Valid([]byte(fixed)) {
		return "", nil, errors.New("re-emit the call as valid JSON")
	}
	return fixed, []string{"trailing_comma"}, nil
}

func newTestRegistry(t *testing.T) *Registry {
	t.Helper()
	r := NewRegistry(&RegistryOptions{Repairer: strictRepairer{}})
	if err := r.Register(echoTool(t, "echo")); err != nil {
		t.Fatal(err)
	}
	r.MustRegister(
		Func(Spec{Name: "boom"}, func(ctx context.Context, call Call) (*Result, error) { panic("kaboom") }),
		Func(Spec{Name: "plain_error"}, func(ctx context.Context, call Call) (*Result, error) { return nil, errors.New("disk full") }),
		Func(Spec{Name: "typed_error"}, func(ctx context.Context, call Call) (*Result, error) {
			return nil, Errorf(KindTransient, "backend busy")
		}),
		Func(Spec{Name: "deadline"}, func(ctx context.Context, call Call) (*Result, error) {
			return nil, context.DeadlineExceeded
		}),
		Func(Spec{Name: "cancelled"}, func(ctx context.Context, call Call) (*Result, error) { return nil, ctx.Err() }),
		Func(Spec{Name: "blocked_policy"}, func(ctx context.Context, call Call) (*Result, error) {
			return Fail(KindBlocked, "writes to /etc are not allowed"), nil
		}),
		&availabilityTool{Tool: Func(Spec{Name: "offline"}, nil), ok: false, reason: "the VPN is down"},
	)
	return r
}

func TestExecuteFailureKinds(t *testing.T) {
	r := newTestRegistry(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name        string
		ctx         context.Context
		call        llm.ToolCall
		kind        FailureKind
		wantContent []string
	}{
		{"validation: missing and mistyped fields", nil, llm.ToolCall{Name: "echo", Arguments: `{"count": "many", "extra": 1}`},
			KindValidation, []string{"error (validation):", "/count", "(arguments)", `(arguments): required: missing properties: ["path"]`, `/extra: unexpected additional properties ["extra"]`, "Fix:"}},
		{"validation: unrepairable JSON", nil, llm.ToolCall{Name: "echo", Arguments: `{"path": `},
			KindValidation, []string{"not valid JSON", "re-emit the call as valid JSON"}},
		{"validation: arguments not an object", nil, llm.ToolCall{Name: "echo", Arguments: `[1, 2]`},
			KindValidation, []string{"must be a JSON object, got an array"}},
		{"transient: typed error keeps its kind", nil, llm.ToolCall{Name: "typed_error", Arguments: `{}`},
			KindTransient, []string{"error (transient): backend busy"}},
		{"not_found names the available tools", nil, llm.ToolCall{Name: "ech0", Arguments: `{}`},
			KindNotFound, []string{`no tool named "ech0"`, "available tools: blocked_policy, boom, cancelled, deadline, echo, plain_error, typed_error"}},
		{"unavailable carries the reason", nil, llm.ToolCall{Name: "offline", Arguments: `{}`},
			KindUnavailable, []string{"tool offline is not available now: the VPN is down"}},
		{"blocked by the tool's own policy", nil, llm.ToolCall{Name: "blocked_policy", Arguments: `{}`},
			KindBlocked, []string{"error (blocked): writes to /etc are not allowed"}},
		{"panic is recovered", nil, llm.ToolCall{Name: "boom", Arguments: `{}`},
			KindPanic, []string{"tool boom panicked: kaboom"}},
		{"timeout from a deadline", nil, llm.ToolCall{Name: "deadline", Arguments: `{}`},
			KindTimeout, []string{"did not finish in time"}},
		{"cancelled context", cancelled, llm.ToolCall{Name: "cancelled", Arguments: `{}`},
			KindCancelled, []string{"tool cancelled was cancelled"}},
		{"plain Go error becomes failed", nil, llm.ToolCall{Name: "plain_error", Arguments: `{}`},
			KindFailed, []string{"error (failed): disk full"}},
	}
	covered := map[FailureKind]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			ex := r.Execute(ctx, tc.call)
			if got := ex.Result.Kind(); got != tc.kind {
				t.Fatalf("kind = %q, want %q (content %q)", got, tc.kind, ex.Result.Content)
			}
			for _, want := range tc.wantContent {
				if !strings.Contains(ex.Result.Content, want) {
					t.Errorf("content %q does not contain %q", ex.Result.Content, want)
				}
			}
		})
		covered[tc.kind] = true
	}
	for _, k := range FailureKinds {
		if !covered[k] {
			t.Errorf("failure kind %s has no case", k)
		}
	}
}

func TestExecuteSuccessRepairsAndCoerces(t *testing.T) {
	r := newTestRegistry(t)
	ex := r.Execute(context.Background(), llm.ToolCall{
		ID: "c1", Name: "echo",
		Arguments: `{"path": "a.txt", "count": "3", "force": "true", "options": "{\"depth\": \"2\", \"deep\": \"false\"}", "lines": ["1", 2, "3"],}`,
	})
	if ex.Result.Failed() {
		t.Fatalf("unexpected failure: %s", ex.Result.Content)
	}
	if want := `{"path":"a.txt","count":3,"force":true,"options":{"depth":2},"lines":[1,2,3]}`; ex.Result.Content != want {
		t.Errorf("content = %s, want %s", ex.Result.Content, want)
	}
	if want := []string{"trailing_comma"}; !reflect.DeepEqual(ex.Repairs, want) {
		t.Errorf("repairs = %v, want %v", ex.Repairs, want)
	}
	want := []Coercion{
		{"/count", "string", "integer"},
		{"/force", "string", "boolean"},
		{"/lines/0", "string", "integer"},
		{"/lines/2", "string", "integer"},
		{"/options", "string", "object"},
		{"/options/deep", "string", "boolean"},
		{"/options/depth", "string", "integer"},
	}
	if !reflect.DeepEqual(ex.Coercions, want) {
		t.Errorf("coercions =\n%v\nwant\n%v", ex.Coercions, want)
	}
	if want := `{"count":3,"force":true,"lines":[1,2,3],"options":{"deep":false,"depth":2},"path":"a.txt"}`; string(ex.Arguments) != want {
		t.Errorf("arguments = %s, want %s", ex.Arguments, want)
	}
}

func TestCoercionLeavesStringsAndUncoercibleValues(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(Func(Spec{Name: "t", Parameters: json.RawMessage(
		`{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"number"},"either":{"type":["string","integer"]}}}`)},
		func(ctx context.Context, call Call) (*Result, error) { return Success(string(call.Arguments)), nil }))
	ex := r.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: `{"s": 12, "n": "1.5e3", "either": "7"}`})
	if ex.Result.Failed() {
		t.Fatal(ex.Result.Content)
	}
	if want := `{"either":"7","n":1.5e3,"s":"12"}`; ex.Result.Content != want {
		t.Errorf("content = %s, want %s", ex.Result.Content, want)
	}
	ex = r.Execute(context.Background(), llm.ToolCall{Name: "t", Arguments: `{"n": "lots"}`})
	if ex.Result.Kind() != KindValidation || len(ex.Coercions) != 0 {
		t.Errorf("uncoercible value: kind %q, coercions %v", ex.Result.Kind(), ex.Coercions)
	}
}

func TestValidationReportsEveryFieldAtOnce(t *testing.T) {
	r := newTestRegistry(t)
	ex := r.Execute(context.Background(), llm.ToolCall{Name: "echo", Arguments: `{"count": "x", "options": {"depth": "deep"}, "lines": [1, "two"]}`})
	want := `error (validation): invalid arguments for echo: ` +
		`(arguments): required: missing properties: ["path"]; /count: type: x has type "string", want "integer"; ` +
		`/lines/1: type: two has type "string", want "integer"; /options/depth: type: deep has type "string", want "integer". ` +
		`Fix: correct these fields to match the schema of echo and call it again`
	if ex.Result.Content != want {
		t.Errorf("content =\n%s\nwant\n%s", ex.Result.Content, want)
	}
}

func TestWithoutRepairerBrokenJSONIsValidation(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(echoTool(t, "echo"))
	ex := r.Execute(context.Background(), llm.ToolCall{Name: "echo", Arguments: `{"path": "a", "count": 1,}`})
	if ex.Result.Kind() != KindValidation || len(ex.Repairs) != 0 {
		t.Fatalf("kind %q repairs %v", ex.Result.Kind(), ex.Repairs)
	}
}

func TestEmptyArgumentsMeanNone(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(Func(Spec{Name: "now"}, func(ctx context.Context, call Call) (*Result, error) {
		return Success(string(call.Arguments)), nil
	}))
	if got := r.Execute(context.Background(), llm.ToolCall{Name: "now", Arguments: "  "}).Result.Content; got != "{}" {
		t.Errorf("content = %q, want {}", got)
	}
}

func TestLastRegistrationWins(t *testing.T) {
	r := NewRegistry(nil)
	say := func(s string) Tool {
		return Func(Spec{Name: "greet"}, func(ctx context.Context, call Call) (*Result, error) { return Success(s), nil })
	}
	r.MustRegister(say("impostor"))
	before := r.Version()
	r.MustRegister(say("lifecycle"))
	if got := r.Execute(context.Background(), llm.ToolCall{Name: "greet"}).Result.Content; got != "lifecycle" {
		t.Errorf("content = %q, want the last registration", got)
	}
	if r.Version() <= before {
		t.Errorf("version did not advance: %d -> %d", before, r.Version())
	}
	if n := len(r.AllDefinitions()); n != 1 {
		t.Errorf("%d definitions, want 1", n)
	}
}

func TestRemoveProvider(t *testing.T) {
	r := NewRegistry(nil)
	for _, name := range []string{"a", "b"} {
		if err := r.RegisterProvider("mcp:files", echoTool(t, name)); err != nil {
			t.Fatal(err)
		}
	}
	r.MustRegister(echoTool(t, "c"))
	if n := r.RemoveProvider("mcp:files"); n != 2 {
		t.Errorf("removed %d, want 2", n)
	}
	if got := names(r.AllDefinitions()); !reflect.DeepEqual(got, []string{"c"}) {
		t.Errorf("left %v, want [c]", got)
	}
	if n := r.RemoveProvider("mcp:files"); n != 0 {
		t.Errorf("second removal removed %d", n)
	}
}

func TestAvailabilityFiltering(t *testing.T) {
	r := NewRegistry(nil)
	off := &availabilityTool{Tool: echoTool(t, "b_off"), reason: "quota exhausted"}
	r.MustRegister(echoTool(t, "c_on"), off, echoTool(t, "a_on"))
	if got, want := names(r.Definitions()), []string{"a_on", "c_on"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Definitions = %v, want %v", got, want)
	}
	if got, want := names(r.AllDefinitions()), []string{"a_on", "b_off", "c_on"}; !reflect.DeepEqual(got, want) {
		t.Errorf("AllDefinitions = %v, want %v", got, want)
	}
	want := []ToolAvailability{{"a_on", true, ""}, {"b_off", false, "quota exhausted"}, {"c_on", true, ""}}
	if got := r.Availability(); !reflect.DeepEqual(got, want) {
		t.Errorf("Availability = %v, want %v", got, want)
	}
	off.ok = true
	if got := names(r.Definitions()); len(got) != 3 {
		t.Errorf("after becoming available: %v", got)
	}
}

func TestSnapshotIsImmutable(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(echoTool(t, "a"))
	s1 := r.Snapshot()
	if s2 := r.Snapshot(); s1 != s2 {
		t.Error("an unchanged registry should return the cached snapshot")
	}
	r.MustRegister(echoTool(t, "b"))
	if s1.Len() != 1 || r.Snapshot().Len() != 2 {
		t.Errorf("old snapshot has %d tools, new has %d", s1.Len(), r.Snapshot().Len())
	}
	if s1.Version() >= r.Snapshot().Version() {
		t.Errorf("versions %d, %d", s1.Version(), r.Snapshot().Version())
	}
}

func TestRegistrationErrors(t *testing.T) {
	r := NewRegistry(nil)
	noop := func(ctx context.Context, call Call) (*Result, error) { return nil, nil }
	tests := []struct {
		spec Spec
		want error
	}{
		{Spec{Name: "has space"}, ErrInvalidName},
		{Spec{Name: ""}, ErrInvalidName},
		{Spec{Name: strings.Repeat("x", 65)}, ErrInvalidName},
		{Spec{Name: "s", Parameters: json.RawMessage(`{"type": "object", "properties": {"a": {"type": "strnig"}}}`)}, ErrInvalidSchema},
		{Spec{Name: "s", Parameters: json.RawMessage(`{"type": "array"}`)}, ErrInvalidSchema},
		{Spec{Name: "s", Parameters: json.RawMessage(`{not json`)}, ErrInvalidSchema},
	}
	for _, tc := range tests {
		if err := r.Register(Func(tc.spec, noop)); !errors.Is(err, tc.want) {
			t.Errorf("Register(%q, %s) = %v, want %v", tc.spec.Name, tc.spec.Parameters, err, tc.want)
		}
	}
	if r.Version() != 0 || len(r.AllDefinitions()) != 0 {
		t.Error("a failed registration changed the registry")
	}
}

type prepTool struct{ Tool }

// PrepareArguments fills a default path when the model sent none.
func (prepTool) PrepareArguments(raw string) string {
	if strings.TrimSpace(raw) == "" {
		return `{"path": "default.txt", "count": 1}`
	}
	return raw
}

func TestArgumentPreparerRunsBeforeValidation(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(prepTool{echoTool(t, "prep")})
	ex := r.Execute(context.Background(), llm.ToolCall{Name: "prep"})
	if ex.Result.Failed() || !strings.Contains(ex.Result.Content, "default.txt") {
		t.Errorf("content %q", ex.Result.Content)
	}
}

func TestInvalidEffectIsAFailure(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(Func(Spec{Name: "bad"}, func(ctx context.Context, call Call) (*Result, error) {
		return Success("ok", Effect{File: &FileEffect{Op: "chmod", Path: "x"}}), nil
	}))
	res := r.Execute(context.Background(), llm.ToolCall{Name: "bad"}).Result
	if res.Kind() != KindFailed || !strings.Contains(res.Content, `unknown file op "chmod"`) {
		t.Errorf("got %q", res.Content)
	}
}

// TestEmptyResultStaysEmpty: a tool result reaches the model exactly as the
// tool returned it; an empty one is not replaced by a placeholder, so that a
// recorded transcript whose tool returned "" replays as recorded.
func TestEmptyResultStaysEmpty(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(Func(Spec{Name: "quiet"}, func(ctx context.Context, call Call) (*Result, error) { return nil, nil }))
	r.MustRegister(Func(Spec{Name: "empty"}, func(ctx context.Context, call Call) (*Result, error) { return Success(""), nil }))
	for _, name := range []string{"quiet", "empty"} {
		res := r.Execute(context.Background(), llm.ToolCall{Name: name}).Result
		if res == nil || res.Content != "" || res.Failed() {
			t.Errorf("%s: result %+v, want an empty success", name, res)
		}
	}
}

func names(defs []llm.ToolDefinition) []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Name
	}
	return out
}

func TestStrictParseRefusesTrailingData(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(echoTool(t, "echo"))
	for _, args := range []string{`{"path": "a", "count": 1}}`, `{"path": "a", "count": 1}]`, `{"path": "a", "count": 1} {}`, `{"path": "a", "count": 1} x`} {
		ex := r.Execute(context.Background(), llm.ToolCall{Name: "echo", Arguments: args})
		if ex.Result.Kind() != KindValidation {
			t.Errorf("%s: kind %q, content %q; trailing data must not pass the strict parse", args, ex.Result.Kind(), ex.Result.Content)
		}
	}
}

func TestSchemasAreSharedNotConfused(t *testing.T) {
	r := NewRegistry(nil)
	// Two tools with the same schema text share one compiled schema; each still
	// names itself in its messages.
	r.MustRegister(echoTool(t, "first"), echoTool(t, "second"))
	ex := r.Execute(context.Background(), llm.ToolCall{Name: "second", Arguments: `{"path": 1}`})
	if !strings.Contains(ex.Result.Content, "invalid arguments for second") {
		t.Errorf("content %q", ex.Result.Content)
	}
}

// TestRemove checks Remove takes the tool out of lookups and definitions,
// reports whether it was there, and bumps the version (so cached snapshots
// are not reused) only when it removed something.
func TestRemove(t *testing.T) {
	r := NewRegistry(nil)
	r.MustRegister(echoTool(t, "a"))
	r.MustRegister(echoTool(t, "b"))
	old := r.Snapshot()
	before := r.Version()
	if !r.Remove("a") {
		t.Fatal("Remove(a) = false, want true")
	}
	if r.Version() != before+1 {
		t.Errorf("version %d -> %d, want one bump", before, r.Version())
	}
	if _, ok := r.Lookup("a"); ok {
		t.Error("a is still looked up after Remove")
	}
	if got := names(r.AllDefinitions()); !reflect.DeepEqual(got, []string{"b"}) {
		t.Errorf("definitions %v, want [b]", got)
	}
	if _, ok := old.Lookup("a"); !ok {
		t.Error("an earlier snapshot lost a: snapshots must be immutable")
	}
	after := r.Version()
	if r.Remove("a") {
		t.Error("Remove(a) twice = true, want false")
	}
	if r.Version() != after {
		t.Errorf("removing nothing bumped the version %d -> %d", after, r.Version())
	}
	if r := r.Execute(context.Background(), llm.ToolCall{Name: "a", Arguments: "{}"}).Result; !r.Failed() {
		t.Errorf("a removed tool still ran: %q", r.Content)
	}
}

// TestInvalidFailureKindIsFailed checks a tool's failure with a kind the
// runtime does not know ("", a typo) reaches the model as failed, without
// changing the tool's own result.
func TestInvalidFailureKindIsFailed(t *testing.T) {
	for _, kind := range []FailureKind{"", "oops", "Transient"} {
		mine := &Result{Content: "went wrong", Failure: &Failure{Kind: kind, Message: "went wrong"}}
		r := NewRegistry(nil)
		r.MustRegister(Func(Spec{Name: "bad"}, func(context.Context, Call) (*Result, error) { return mine, nil }))
		got := r.Execute(context.Background(), llm.ToolCall{Name: "bad", Arguments: "{}"}).Result
		if got.Kind() != KindFailed {
			t.Errorf("kind %q reached the model as %q, want failed", kind, got.Kind())
		}
		if mine.Failure.Kind != kind {
			t.Errorf("the tool's own result was changed to %q", mine.Failure.Kind)
		}
	}
}

// TestRemoveProviderOfNothingKeepsSnapshot: removing a provider that has no
// tools changes nothing, so the cached snapshot and the version stay; a
// removal that removes a tool makes a new one without it.
func TestRemoveProviderOfNothingKeepsSnapshot(t *testing.T) {
	r := NewRegistry(nil)
	if err := r.RegisterProvider("mcp:files", echoTool(t, "a")); err != nil {
		t.Fatal(err)
	}
	before := r.Snapshot()
	if n := r.RemoveProvider("mcp:other"); n != 0 || r.Snapshot() != before || r.Version() != before.Version() {
		t.Errorf("removing nothing (%d) replaced the snapshot or moved the version", n)
	}
	if n := r.RemoveProvider("mcp:files"); n != 1 || r.Snapshot().Len() != 0 || r.Version() == before.Version() {
		t.Errorf("removed %d; snapshot holds %d tools at version %d (was %d)", n, r.Snapshot().Len(), r.Version(), before.Version())
	}
}
