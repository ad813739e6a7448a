package workspace_test

import (
	"errors"
	"fmt"

	"github.com/tapeloop/tapeloop/workspace"
)

// Example shows a workspace confining every name to its root: files are
// written and read by relative names, parent folders appear as needed, and
// a name that leads outside the root is refused with ErrEscape.
func Example() {
	ws := workspace.NewMemory()
	if err := ws.WriteFile("notes/today.txt", []byte("hello\n")); err != nil {
		panic(err)
	}
	if err := ws.AppendFile("notes/today.txt", []byte("world\n")); err != nil {
		panic(err)
	}
	data, err := ws.ReadFile("./notes/../notes/today.txt")
	fmt.Printf("%q %v\n", data, err)

	entries, _ := ws.ReadDir("notes")
	for _, e := range entries {
		fmt.Println(e.Name())
	}

	err = ws.WriteFile("../outside.txt", []byte("x"))
	fmt.Println(errors.Is(err, workspace.ErrEscape))
	// Output:
	// "hello\nworld\n" <nil>
	// today.txt
	// true
}
