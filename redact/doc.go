// Package redact is tapeloop's one redaction policy: what every writer
// (a recorded tape, a golden file, eval's reports and saved trials, what
// the commands print) replaces with Redacted before anything is kept.
//
// A Redactor finds known secrets (the values of the providers' key
// variables and of every variable named like a secret, in any encoding),
// key shapes, JWTs, PEM private keys, URL passwords and credential
// headers. Its inputs are passed in (Options: the environment, extra
// variable names, patterns); New reads nothing else. Default builds the
// policy for the process's environment: a command or a test calls it once
// at its top and hands the Redactor down, so that no encoder reads the
// environment itself.
//
// Matches and Hidden work the other way, for a text redacted when it was
// written (a tape, a golden) and made again where the redaction knows
// less: whether a new text is the recorded one with a secret in place of
// each Redacted, and which values those were.
package redact
