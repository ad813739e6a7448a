// Package mcpname holds the rule for an MCP connection's name, shared by
// package mcptools, which connects, and package scenario, which checks
// setup.mcp without linking the MCP SDK.
package mcpname

import "fmt"

// Valid reports whether name is 1 to 32 of a-z, A-Z, 0-9, _ and -.
func Valid(name string) bool {
	if len(name) == 0 || len(name) > 32 {
		return false
	}
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// Check returns an error saying what a connection name must be when name is
// not Valid, and nil when it is.
func Check(name string) error {
	if !Valid(name) {
		return fmt.Errorf("invalid connection name %q: want 1 to 32 of a-z, A-Z, 0-9, _ and -", name)
	}
	return nil
}
