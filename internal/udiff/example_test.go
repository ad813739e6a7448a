package udiff_test

import (
	"fmt"

	"github.com/tapeloop/tapeloop/internal/udiff"
)

func ExampleHunks() {
	fmt.Print("--- want\n+++ got\n" + udiff.Hunks("one\ntwo\nthree\n", "one\nTWO\nthree\n"))
	// Output:
	// --- want
	// +++ got
	// @@ -1,3 +1,3 @@
	//  one
	// -two
	// +TWO
	//  three
}
