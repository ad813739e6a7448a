package harness

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/fixtures"
	"github.com/tapeloop/tapeloop/internal/jsonvalue"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// ledger is a user's world: balances beyond the workspace's files.
type ledger struct {
	mu       sync.Mutex
	Balances map[string]int `json:"balances"`
}

func (l *ledger) State() any {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l
}

type depositArgs struct {
	Account string `json:"account"`
	Amount  int    `json:"amount"`
}

// depositFactory is a user tool: with: {start: N} sets every new account's
// opening balance.
var depositFactory = toolkit.NewFactory("deposit", "adds to an account's balance",
	func(name string, env *toolkit.Env, cfg struct {
		Start int `yaml:"start"`
	}) (tools.Tool, error) {
		l := toolkit.Shared(env, "ledger", func() *ledger { return &ledger{Balances: map[string]int{}} })
		return tools.New(tools.Spec{Name: name, Description: "Deposit an amount.", Safety: tools.Safety{SideEffects: tools.SideEffectExternal}},
			func(_ context.Context, in depositArgs) (*tools.Result, error) {
				l.mu.Lock()
				defer l.mu.Unlock()
				if _, ok := l.Balances[in.Account]; !ok {
					l.Balances[in.Account] = cfg.Start
				}
				l.Balances[in.Account] += in.Amount
				return tools.Success("ok"), nil
			})
	})

const depositScenario = `format: tapeloop/v1
setup:
  tools:
    - name: deposit
      with: {start: 10}
input: [{role: user, content: "Deposit 5 into acme."}]
tape:
  - response:
      tool_calls:
        - {id: call_1, name: deposit, arguments: {account: acme, amount: 5}}
  - response: {content: done}
`

func runUserScenario(t *testing.T, text string, opts *RunOptions) (*scenario.Scenario, *Outcome) {
	t.Helper()
	s, err := scenario.Parse([]byte(text), "deposit.yaml", "deposit")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, o
}

func TestUserToolAndState(t *testing.T) {
	_, o := runUserScenario(t, depositScenario, &RunOptions{Tools: []*toolkit.Factory{depositFactory}})
	if o.Termination != "final_text" {
		t.Fatalf("termination %s (%s)", o.Termination, o.Error)
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		t.Fatal(err)
	}
	want := "final: done\nstate:\n  ledger:\n    balances:\n      acme: 15\n"
	if !strings.HasSuffix(string(golden), want) {
		t.Errorf("golden does not end with the state:\n%s", golden)
	}
}

func TestNoWorldNoStateKey(t *testing.T) {
	_, o := runUserScenario(t, strings.Replace(depositScenario, "    - name: deposit\n      with: {start: 10}\n", "    - echo\n", 1)+"", nil)
	golden, _ := o.Golden(redact.Default())
	if strings.Contains(string(golden), "state:") {
		t.Errorf("a run without worlds has a state: key:\n%s", golden)
	}
}

func TestExpectState(t *testing.T) {
	cases := []struct {
		name, expect string
		want         []string
	}{
		{name: "pointer holds", expect: "  state: {/ledger/balances/acme: 15}\n"},
		{name: "whole holds", expect: "  state: {ledger: {balances: {acme: 15}}}\n"},
		{name: "pointer differs", expect: "  state: {/ledger/balances/acme: 16}\n",
			want: []string{"deposit.yaml:13: expect.state: expected /ledger/balances/acme to be 16, found 15"}},
		{name: "pointer missing", expect: "  state:\n    /ledger/balances/zeta: 1\n",
			want: []string{`deposit.yaml:14: expect.state: expected /ledger/balances/zeta to be 1, found no such value (state: {"ledger":{"balances":{"acme":15}}})`}},
		{name: "whole differs", expect: "  state: {ledger: {balances: {}}}\n",
			want: []string{`deposit.yaml:13: expect.state: expected the state to be {"ledger":{"balances":{}}}, found {"ledger":{"balances":{"acme":15}}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, o := runUserScenario(t, depositScenario+"expect:\n"+c.expect, &RunOptions{Tools: []*toolkit.Factory{depositFactory}})
			got := checkAll(s, o)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestExpectStateMixed(t *testing.T) {
	_, err := scenario.Parse([]byte(depositScenario+"expect:\n  state:\n    ledger: {}\n    /ledger/balances: {}\n"), "deposit.yaml", "deposit")
	want := `deposit.yaml:15: expect.state./ledger/balances: mixes JSON pointers (keys starting with /) with world names: give either the whole state or pointers into it`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestUnknownToolListsUserTools(t *testing.T) {
	s, err := scenario.Parse([]byte(strings.Replace(depositScenario, "name: deposit\n", "name: withdraw\n", 1)), "deposit.yaml", "deposit")
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(s, &RunOptions{Tools: []*toolkit.Factory{depositFactory}})
	want := `deposit.yaml:4: setup.tools[withdraw].fixture: unknown tool "withdraw" (known: fixtures ` + strings.Join(fixtures.Names(), ", ") + `; your tools deposit)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if err := Validate(s, nil); err == nil || !strings.Contains(err.Error(), `unknown tool "withdraw"`) {
		t.Errorf("without user tools: %v", err)
	}
}

func TestUserToolConfigError(t *testing.T) {
	s, err := scenario.Parse([]byte(strings.Replace(depositScenario, "{start: 10}", "{strat: 10}", 1)), "deposit.yaml", "deposit")
	if err != nil {
		t.Fatal(err)
	}
	err = Validate(s, &RunOptions{Tools: []*toolkit.Factory{depositFactory}})
	if err == nil || !errors.Is(err, toolkit.ErrUnknownKey) || !strings.HasPrefix(err.Error(), "deposit.yaml:5: setup.tools[deposit].with.strat: ") {
		t.Errorf("got %v", err)
	}
}

func TestBadFactories(t *testing.T) {
	echo, _ := fixtures.Lookup("echo")
	cases := map[string][]*toolkit.Factory{
		`invalid tool factory: "echo" is the name of a built-in fixture; give your tool another name`:   {echo},
		`invalid tool factory: two factories are named "deposit"`:                                       {depositFactory, depositFactory},
		`invalid tool factory: tools[0] needs a name and a New func (build it with toolkit.NewFactory)`: {{Name: "x"}},
	}
	s, err := scenario.Parse([]byte(depositScenario), "deposit.yaml", "deposit")
	if err != nil {
		t.Fatal(err)
	}
	for want, fs := range cases {
		if err := Validate(s, &RunOptions{Tools: fs}); err == nil || err.Error() != want || !errors.Is(err, errToolFactory) {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
}

func TestResolve(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"a/b": {"~x": [10, 20]}, "": 1}`), &doc); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		p    string
		want string
		ok   bool
	}{
		{"", `{"":1,"a/b":{"~x":[10,20]}}`, true},
		{"/a~1b/~0x/0", "10", true},
		{"/a~1b/~0x/1", "20", true},
		{"/", "1", true},
		{"/a~1b/~0x/2", "", false},
		{"/a~1b/~0x/01", "", false},
		{"/nope", "", false},
		{"nope", "", false},
	}
	for _, c := range cases {
		v, ok := resolvePointer(doc, c.p)
		if ok != c.ok || (ok && jsonvalue.Canonical(v) != c.want) {
			t.Errorf("resolvePointer(%q) = %s, %v; want %s, %v", c.p, jsonvalue.Canonical(v), ok, c.want, c.ok)
		}
	}
}
