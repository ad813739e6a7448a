package evalrun

import (
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/tapeloop/tapeloop/redact"
)

// redactFlags are --redact-env and --redact, which record and eval share:
// with them, newRedactor builds the one redaction policy every writer of
// these commands uses (tapes, saved trials, reports, goldens, the expect
// block of --new, what the command prints).
type redactFlags struct {
	env, patterns stringList
}

// addRedactFlags adds --redact-env and --redact to fs.
func addRedactFlags(fs *flag.FlagSet) *redactFlags {
	f := &redactFlags{}
	fs.Var(&f.env, "redact-env", "also redact the value of this environment variable (repeatable, or comma-separated)")
	fs.Var(&f.patterns, "redact", "also redact every match of this regular expression (repeatable)")
	return f
}

// newRedactor returns the redactor of the policy for the command's
// environment (the providers' keys, every variable named like a secret,
// the key shapes) with the flags' additions.
func (f *redactFlags) newRedactor() (*redact.Redactor, error) {
	var patterns []*regexp.Regexp
	for _, p := range f.patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("--redact: %w", err)
		}
		patterns = append(patterns, re)
	}
	return redact.New(&redact.Options{Environ: os.Environ(), ExtraEnv: f.env, Patterns: patterns}), nil
}

// redacting returns a copy of e whose stdout and stderr go through r, so
// that nothing the command prints holds a secret, and whose replays match
// the tapes' [REDACTED] with r (see redactor).
func (e *env) redacting(r *redact.Redactor) *env {
	c := *e
	c.stdout, c.stderr = r.Writer(e.stdout), r.Writer(e.stderr)
	c.red = r
	return &c
}

// redactor returns the command's redaction policy: the one redacting gave
// e, else the default policy (redact.Default).
func (e *env) redactor() *redact.Redactor {
	if e.red != nil {
		return e.red
	}
	return redact.Default()
}
