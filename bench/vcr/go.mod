module github.com/tapeloop/tapeloop/bench/vcr

go 1.26.0

require github.com/tapeloop/tapeloop v0.0.0

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.27 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/openai/openai-go/v3 v3.96.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/sergi/go-diff v1.4.0 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.1.1 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.6 // indirect
	gopkg.in/dnaeon/go-vcr.v4 v4.0.7
)

replace github.com/tapeloop/tapeloop => ../..
