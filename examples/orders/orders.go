// Package orders is a small order-desk agent, written the way a team would
// write its own: two Go tools over an in-memory store, a system prompt, and
// agent.Run. It shows how to put such an agent through tapeloop scenarios:
//
//   - Tools returns the tools as factories (toolkit.NewFactory), which a
//     scenario names in setup.tools exactly like a built-in fixture.
//   - Both tools share one Store per run (toolkit.Shared); the Store is a
//     toolkit.World, so its end state goes into each golden under
//     state.orders, and expect.state checks it.
//   - AnswerMatchesBook is a check of its own, written in Go
//     (harness.NewChecker): a scenario calls it in expect.check, and it
//     fails an answer that contradicts the order book.
//   - orders_test.go replays scenarios/ with harness.Test; cmd/ordersrun is
//     evalrun with these tools and checks added (evalrun.Main), so
//     `go run ./examples/orders/cmd/ordersrun examples/orders/scenarios`
//     replays the same folder.
package orders

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// SystemPrompt is what the agent is told before the customer speaks.
const SystemPrompt = "You are the order desk. Look orders up before acting on them. Cancel only when the customer asks; an order that has shipped cannot be cancelled."

// Order is one order of the store.
type Order struct {
	ID     string `json:"id"`
	Item   string `json:"item"`
	Status string `json:"status"` // pending, shipped or cancelled
}

// Store is the in-memory order book the tools share. It is safe for
// concurrent use.
type Store struct {
	mu     sync.Mutex
	orders map[string]*Order
}

// NewStore returns a store holding a few demo orders.
func NewStore() *Store {
	s := &Store{orders: map[string]*Order{}}
	for _, o := range []Order{
		{ID: "A100", Item: "blue kettle", Status: "shipped"},
		{ID: "A200", Item: "tea towels (3)", Status: "pending"},
		{ID: "A300", Item: "teapot", Status: "pending"},
	} {
		s.orders[o.ID] = &o
	}
	return s
}

// State implements toolkit.World: the orders by id, for the golden's
// state.orders.
func (s *Store) State() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]Order{}
	for _, id := range slices.Sorted(maps.Keys(s.orders)) {
		out[id] = *s.orders[id]
	}
	return out
}

type lookupArgs struct {
	ID string `json:"id" jsonschema:"the order id, like A100"`
}

type cancelArgs struct {
	ID     string `json:"id" jsonschema:"the order id, like A100"`
	Reason string `json:"reason" jsonschema:"why the customer cancels"`
}

func (s *Store) lookup(_ context.Context, in lookupArgs) (*tools.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[in.ID]
	if !ok {
		return tools.ValidationFailure("no order "+in.ID, "check the id with the customer"), nil
	}
	data, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return tools.Success(string(data)), nil
}

func (s *Store) cancel(_ context.Context, in cancelArgs) (*tools.Result, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.orders[in.ID]
	switch {
	case !ok:
		return tools.ValidationFailure("no order "+in.ID, "check the id with the customer"), nil
	case o.Status == "shipped":
		return tools.ValidationFailure(fmt.Sprintf("order %s has shipped", in.ID), "offer a return instead of a cancellation"), nil
	case o.Status == "cancelled":
		return tools.Success(fmt.Sprintf("order %s was already cancelled", in.ID)), nil
	}
	o.Status = "cancelled"
	return tools.Success(fmt.Sprintf("order %s cancelled", in.ID)), nil
}

// store is the run's shared Store.
func store(env *toolkit.Env) *Store { return toolkit.Shared(env, "orders", NewStore) }

// LookupOrder is the lookup_order tool: it reads an order, changing nothing.
var LookupOrder = toolkit.NewFactory("lookup_order", "looks an order up by id (read)",
	func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
		return tools.New(tools.Spec{
			Name:        name,
			Description: "Look an order up by its id. Returns the order as JSON.",
			Safety:      tools.Safety{SideEffects: tools.SideEffectRead, Idempotent: true},
		}, store(env).lookup)
	})

// CancelOrder is the cancel_order tool: it changes the world, so it
// declares side effects external (and is not retried).
var CancelOrder = toolkit.NewFactory("cancel_order", "cancels a pending order (external)",
	func(name string, env *toolkit.Env, _ struct{}) (tools.Tool, error) {
		return tools.New(tools.Spec{
			Name:        name,
			Description: "Cancel a pending order. Shipped orders cannot be cancelled.",
			Safety:      tools.Safety{SideEffects: tools.SideEffectExternal},
		}, store(env).cancel)
	})

// Tools returns the agent's tool factories, for harness.RunOptions.Tools,
// harness.TestOptions.Tools and evalrun.Options.Tools.
func Tools() []*toolkit.Factory { return []*toolkit.Factory{LookupOrder, CancelOrder} }

// Run is the agent in production: the system prompt, the customer's
// message, both tools over store, and model answering.
func Run(ctx context.Context, model llm.Model, store *Store, customer string) (*agent.RunResult, error) {
	env := &toolkit.Env{}
	toolkit.Shared(env, "orders", func() *Store { return store })
	reg := tools.NewRegistry(nil)
	for _, f := range Tools() {
		t, err := f.New(f.Name, env, nil)
		if err != nil {
			return nil, err
		}
		if err := reg.Register(t); err != nil {
			return nil, err
		}
	}
	input := []llm.Message{llm.SystemMessage(SystemPrompt), llm.UserMessage(customer)}
	return agent.Run(ctx, model, reg, input, nil)
}
