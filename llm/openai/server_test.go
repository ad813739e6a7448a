package openai_test

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/tapeloop/tapeloop/llm/openai" // registers the provider the wire tests open by name
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
