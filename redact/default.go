package redact

import (
	"os"
	"slices"
	"strings"
	"sync"
)

// def caches the secrets of the default policy for the environment they
// were worked out from, so that a run of many scenarios works them out
// once.
var def struct {
	mu      sync.Mutex
	environ []string
	r       *Redactor
}

// Default returns a Redactor of the policy for the process's environment,
// New(&Options{Environ: os.Environ()}): the one place the policy reads the
// environment. A command or a test calls it at its top and passes the
// Redactor to every writer; a writer never reads the environment itself.
// Each call returns a new Redactor, with counts of its own; the secrets it
// knows are worked out again only when the environment changed since the
// last call (t.Setenv, os.Unsetenv), which is found by comparing it entry
// by entry (an unchanged entry shares its string, so this costs little).
func Default() *Redactor {
	environ := os.Environ()
	def.mu.Lock()
	defer def.mu.Unlock()
	if def.r == nil || !slices.Equal(def.environ, environ) {
		def.environ, def.r = environ, New(&Options{Environ: environ})
	}
	return &Redactor{known: def.r.known, environ: def.r.environ, counts: map[string]int{}}
}

// lookup returns a function reading a variable's value from environ
// (NAME=value entries; the first of a name wins, as in os.Getenv).
func lookup(environ []string) func(string) string {
	return func(name string) string {
		for _, kv := range environ {
			if k, v, ok := strings.Cut(kv, "="); ok && k == name {
				return v
			}
		}
		return ""
	}
}
