package diffrecorder_test

import (
	"fmt"

	"github.com/tapeloop/tapeloop/diffrecorder"
	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/workspace"
)

func ExampleRecorder() {
	w := workspace.NewMemory()
	w.WriteFile("notes.txt", []byte("one\ntwo\nthree\n"))
	rec, err := diffrecorder.New(w)
	if err != nil {
		panic(err)
	}

	// A tool edits a file and reports the effect.
	w.WriteFile("notes.txt", []byte("one\nTWO\nthree\n"))
	rec.Record([]tools.Effect{tools.FileChange(tools.OpModify, "notes.txt", 14)})

	turn, err := rec.EndTurn()
	if err != nil {
		panic(err)
	}
	fmt.Print(turn)
	// Output:
	// diff --git a/notes.txt b/notes.txt
	// --- a/notes.txt
	// +++ b/notes.txt
	// @@ -1,3 +1,3 @@
	//  one
	// -two
	// +TWO
	//  three
}
