module github.com/tapeloop/tapeloop/report/browsertest

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/tapeloop/tapeloop v0.0.0
)

require (
	github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream v1.7.27 // indirect
	github.com/aws/smithy-go v1.28.9 // indirect
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/sergi/go-diff v1.4.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
)

// The module is developed in tapeloop's repository, against its tree.
replace github.com/tapeloop/tapeloop => ../..
