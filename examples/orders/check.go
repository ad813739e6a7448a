package orders

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tapeloop/tapeloop/harness"
)

// bookClaim is the configuration of AnswerMatchesBook: the order whose
// status the answer must state.
type bookClaim struct {
	Order string `yaml:"order" fixture:"required"`
}

// AnswerMatchesBook is the check answer_matches_book: the agent's final
// text names the order and the status the order book ends with (pending,
// shipped or cancelled), so an agent that tells the customer an order is
// cancelled when the tool refused to cancel it fails. A scenario calls it with
// `expect.check: {name: answer_matches_book, with: {order: A100}}`.
var AnswerMatchesBook = harness.NewChecker("answer_matches_book",
	"the final text states the order's status as the order book ends with it",
	func(o *harness.Outcome, with bookClaim) error {
		data, err := json.Marshal(o.State["orders"])
		if err != nil {
			return err
		}
		var book map[string]Order
		if err := json.Unmarshal(data, &book); err != nil || book == nil {
			return fmt.Errorf("the run has no order book (state.orders): %s", data)
		}
		order, ok := book[with.Order]
		if !ok {
			return fmt.Errorf("the order book has no order %s", with.Order)
		}
		if !strings.Contains(o.Final, with.Order) {
			return fmt.Errorf("the final text does not name order %s: %q", with.Order, o.Final)
		}
		if !strings.Contains(o.Final, order.Status) {
			return fmt.Errorf("the final text does not say order %s is %s: %q", with.Order, order.Status, o.Final)
		}
		return nil
	})

// Checks returns the agent's checks, for harness.TestOptions.Checks and
// evalrun.Options.Checks.
func Checks() []*harness.Checker { return []*harness.Checker{AnswerMatchesBook} }
