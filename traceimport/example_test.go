package traceimport_test

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/traceimport"
)

// A trace of one model call, as the OpenTelemetry Collector's file
// exporter writes it (one JSON line), becomes a scenario.
func ExampleScenario() {
	trace := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"4bf92f3577b34da6a3ce929d0e0e4736","spanId":"a2fb4a1d1a96d312","name":"chat gpt-4.1-mini","startTimeUnixNano":"1764950400000000000","attributes":[` +
		`{"key":"gen_ai.operation.name","value":{"stringValue":"chat"}},` +
		`{"key":"gen_ai.input.messages","value":{"stringValue":"[{\"role\":\"user\",\"parts\":[{\"type\":\"text\",\"content\":\"Say hello.\"}]}]"}},` +
		`{"key":"gen_ai.output.messages","value":{"stringValue":"[{\"role\":\"assistant\",\"finish_reason\":\"stop\",\"parts\":[{\"type\":\"text\",\"content\":\"Hello!\"}]}]"}}]}]}]}]}`
	spans, err := traceimport.Read(strings.NewReader(trace), "trace.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	runs, err := traceimport.Runs(spans, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	doc, err := traceimport.Scenario(runs[0], &traceimport.ScenarioOptions{Source: "trace.jsonl"})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := yaml.NewEncoder(os.Stdout)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		fmt.Println(err)
	}
	// Output:
	// format: tapeloop/v1
	// description: 'Imported from trace.jsonl: run 4bf92f3577b34da6a3ce929d0e0e4736, 1 model call (gen_ai).'
	// input:
	//   - role: user
	//     content: Say hello.
	// offered:
	//   system: []
	// tape:
	//   - response:
	//       content: Hello!
	//       finish_reason: stop
	//     request:
	//       new:
	//         - role: user
	//           content: Say hello.
}
