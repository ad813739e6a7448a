// Package genkit proves the bridge with an agent on Firebase Genkit Go and
// its Google AI plugin (clientproof.Prove, as bridge/clients does for the
// other clients).
//
// It is a module of its own because Genkit's graph and tapeloop's do not
// build together: Genkit v1.4.0's prompt library,
// github.com/google/dotprompt/go, is written against
// github.com/invopop/jsonschema v0.13 (its ordered maps are
// wk8/go-ordered-map's), while tapeloop requires anthropic-sdk-go, whose
// go.mod asks for v0.14 (pb33f/ordered-map's), and the go command takes
// the higher. This module's go.mod replaces jsonschema with v0.13, which
// holds because nothing it compiles links anthropic-sdk-go (with v0.13
// that SDK's schemautil.go fails the same way).
package genkit
