package anthropic_test

import (
	"testing"

	"go.uber.org/goleak"

	_ "github.com/tapeloop/tapeloop/llm/anthropic" // registers the provider the wire tests open by name
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
