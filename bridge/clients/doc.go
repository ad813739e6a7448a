// Package clients proves the bridge with model clients nobody on this
// project wrote: agents built on github.com/sashabaranov/go-openai and
// github.com/tmc/langchaingo are recorded against a scripted local server
// that speaks the OpenAI wire format, ones on google.golang.org/genai
// against one speaking the Gemini API, one on anthropic-sdk-go v2 against
// one speaking Messages, and a ReAct agent of cloudwego/eino on each of
// its OpenAI, Claude and Gemini model components against one speaking the
// component's format; each is replayed with the server gone, and made to
// fail closed when what their model sees changes.
//
// It is a module of its own so that these clients never enter the
// requirements of github.com/tapeloop/tapeloop: only its tests use them.
package clients
