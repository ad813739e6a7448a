package wire

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/tapeloop/tapeloop/llm"
)

// Bedrock is Amazon Bedrock's Converse API: POST .../model/M/converse, and
// .../model/M/converse-stream answered with the binary AWS event stream
// (application/vnd.amazon.eventstream). The model (an id, an ARN or an
// inference profile, escaped in the path) is named by the path.
var Bedrock Format = bedrock{}

type bedrock struct{}

func (bedrock) String() string   { return "bedrock" }
func (bedrock) Endpoint() string { return "POST .../model/M/converse" }

// Env points the AWS SDKs at base: AWS_ENDPOINT_URL_BEDROCK_RUNTIME, the
// service-specific endpoint variable every SDK of the AWS SDKs and Tools
// reference reads, and a region (an SDK refuses to sign without one).
func (bedrock) Env(base string) []string {
	return []string{"AWS_ENDPOINT_URL_BEDROCK_RUNTIME=" + base, "AWS_REGION=us-east-1"}
}

// Credentials are the SigV4 signature headers (and a Bedrock API key, sent
// as a bearer token in Authorization). The bridge never checks them.
func (bedrock) Credentials() Credentials {
	return Credentials{Headers: []string{"Authorization", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256"}}
}

// VersionHeaders is empty: Converse has one version.
func (bedrock) VersionHeaders() []string { return nil }

// route claims .../model/M/converse and .../model/M/converse-stream.
func (bedrock) route(path string) (route, bool) {
	p := strings.TrimRight(path, "/")
	var stream bool
	switch {
	case strings.HasSuffix(p, "/converse"):
		p = strings.TrimSuffix(p, "/converse")
	case strings.HasSuffix(p, "/converse-stream"):
		p, stream = strings.TrimSuffix(p, "/converse-stream"), true
	default:
		return route{}, false
	}
	// The SDKs escape an ARN's slashes (%2F); the path here is unescaped,
	// so the model is everything after the first /model/.
	i := strings.Index(p, "/model/")
	if i < 0 {
		return route{}, false
	}
	id := p[i+len("/model/"):]
	if id == "" {
		return route{}, false
	}
	if m, err := url.PathUnescape(id); err == nil {
		id = m
	}
	return route{model: id, stream: stream}, true
}

func (bedrock) decode(body []byte, r route, last *decoded) (*Call, error) {
	return decodeBedrock(body, r, last)
}

func (bedrock) encode(c *Call, resp *llm.Response, opts *Options) (string, []byte) {
	if c.Stream {
		return ContentEventStream, bedrockStream(resp, opts)
	}
	return ContentJSON, bedrockBody(resp)
}

// status: Bedrock answers a model that took too long with 408
// (ModelTimeoutException).
func (bedrock) status(kind llm.ErrorKind) int {
	if kind == llm.ErrTimeout {
		return http.StatusRequestTimeout
	}
	return 0
}

// errorBody is Bedrock's {"message": ...}; the error's type goes in the
// X-Amzn-ErrorType header (errorHeader).
func (bedrock) errorBody(status int, kind llm.ErrorKind, msg string) []byte {
	return marshal(bedrockError{Message: msg})
}

// errorHeader names the error's type, as the AWS SDKs read it.
func (bedrock) errorHeader(status int, kind llm.ErrorKind) http.Header {
	return http.Header{"X-Amzn-Errortype": {bedrockErrorType(status, kind)}}
}

// errorEvent is an event stream exception message carrying body, of an
// unknown kind (see typedErrorEvent).
func (bedrock) errorEvent(body []byte) []byte {
	return bedrockException("internalServerException", body)
}

// typedErrorEvent is the exception message a stream fails with for a
// failure of status and kind, carrying body.
func (bedrock) typedErrorEvent(status int, kind llm.ErrorKind, body []byte) []byte {
	return bedrockException(bedrockStreamException(status, kind), body)
}

func (bedrock) contextPrefix() string { return "Input is too long for requested model: " }

type bedrockError struct {
	Message string `json:"message"`
}

// bedrockErrorType is the exception a Bedrock server answers a failure of
// status and kind with.
func bedrockErrorType(status int, kind llm.ErrorKind) string {
	switch {
	case status == http.StatusTooManyRequests || kind == llm.ErrRateLimited:
		return "ThrottlingException"
	case status == http.StatusServiceUnavailable:
		return "ServiceUnavailableException"
	case status == http.StatusUnauthorized:
		return "UnrecognizedClientException"
	case status == http.StatusForbidden || kind == llm.ErrAuth:
		return "AccessDeniedException"
	case status == http.StatusNotFound:
		return "ResourceNotFoundException"
	case status == http.StatusRequestTimeout || kind == llm.ErrTimeout:
		return "ModelTimeoutException"
	case status >= 500:
		return "InternalServerException"
	}
	return "ValidationException"
}
