package repair_test

import (
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/llm/repair"
	"github.com/tapeloop/tapeloop/tools"
)

// Cascade is the runtime's standard tools.Repairer.
var _ tools.Repairer = repair.Cascade{}

func ExampleRepair() {
	out, fixes, err := repair.Repair(`{"path": 'a.txt', "force": True,`)
	fmt.Println(out, fixes, err)

	_, _, err = repair.Repair(`{"a" ]`)
	fmt.Println(err)
	fmt.Println(errors.Is(err, repair.ErrUnrepairable))
	// Output:
	// {"path": "a.txt", "force": true} [trailing_comma single_quotes python_literals close_brackets] <nil>
	// re-emit the call as valid JSON: unexpected ']' where ':' should follow the key at line 1, column 6
	// true
}
