package mcpname

import (
	"strings"
	"testing"
)

func TestValid(t *testing.T) {
	for name, want := range map[string]bool{
		"files": true, "a": true, "A-Z_09": true, strings.Repeat("x", 32): true,
		"": false, strings.Repeat("x", 33): false, "has space": false, "dot.ted": false, "é": false, "a/b": false,
	} {
		if got := Valid(name); got != want {
			t.Errorf("Valid(%q) = %v, want %v", name, got, want)
		}
		if err := Check(name); (err == nil) != want {
			t.Errorf("Check(%q) = %v", name, err)
		}
	}
	if err := Check("a b"); err == nil || err.Error() != `invalid connection name "a b": want 1 to 32 of a-z, A-Z, 0-9, _ and -` {
		t.Errorf("Check(%q) = %v", "a b", err)
	}
}
