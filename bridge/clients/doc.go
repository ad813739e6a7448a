// Package clients proves the bridge with model clients nobody on this
// project wrote: agents built on github.com/sashabaranov/go-openai and
// github.com/tmc/langchaingo are recorded against a scripted local server
// that speaks the OpenAI wire format, ones on google.golang.org/genai and
// on cloudwego/eino's Gemini model component (a ReAct agent) against one
// speaking the Gemini API, and one on anthropic-sdk-go v2 against one
// speaking Messages; each is replayed with the server gone, and made to
// fail closed when what their model sees changes.
//
// It is a module of its own so that these clients never enter the
// requirements of github.com/tapeloop/tapeloop: only its tests use them.
package clients
