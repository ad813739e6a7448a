// Package repair repairs broken JSON in tool-call arguments. (Stub: strict parse
// only; the cascade is being written.)
package repair

import (
	"encoding/json"
	"errors"
)

// ErrUnrepairable is wrapped by the error of Repair when no fix helps.
var ErrUnrepairable = errors.New("unrepairable JSON")

// Repair returns input as valid JSON and the fixes applied, in order.
func Repair(input string) (output string, fixes []string, err error) {
	if json.Valid([]byte(input)) {
		return input, nil, nil
	}
	return "", nil, ErrUnrepairable
}

// Cascade is the repair cascade; its zero value is ready to use and it satisfies
// tools.Repairer.
type Cascade struct{}

// Repair calls the package-level Repair.
func (Cascade) Repair(input string) (string, []string, error) { return Repair(input) }
