package wire

import "testing"

// TestBedrockRoute: the Converse paths the AWS SDKs send (the model id as
// the path holds it once unescaped, an ARN's slashes included, or escaped) are
// Bedrock's; InvokeModel and other paths are not.
func TestBedrockRoute(t *testing.T) {
	cases := []struct {
		path   string
		model  string
		stream bool
		ok     bool
	}{
		{"/model/amazon.nova-pro-v1:0/converse", "amazon.nova-pro-v1:0", false, true},
		{"/model/us.anthropic.claude-haiku-4-5/converse-stream", "us.anthropic.claude-haiku-4-5", true, true},
		{"/model/arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc/converse", "arn:aws:bedrock:us-east-1:111122223333:application-inference-profile/abc", false, true},
		{"/proxy/model/meta.llama3-70b/converse/", "meta.llama3-70b", false, true},
		// A path as sent (escaped, as the SDKs escape a colon) names the
		// model unescaped; one that does not unescape is kept as it is.
		{"/model/amazon.nova-pro-v1%3A0/converse", "amazon.nova-pro-v1:0", false, true},
		{"/model/amazon.nova-pro-v1%zz/converse", "amazon.nova-pro-v1%zz", false, true},
		{"/model//converse", "", false, false},
		{"/model/amazon.nova-pro-v1:0/invoke", "", false, false},
		{"/converse", "", false, false},
		{"/v1/models/gemini-2.5-flash:generateContent", "", false, false},
	}
	for _, tc := range cases {
		r, ok := Bedrock.route(tc.path)
		if ok != tc.ok || r.model != tc.model || r.stream != tc.stream {
			t.Errorf("route(%q) = %+v, %v; want model %q stream %v, %v", tc.path, r, ok, tc.model, tc.stream, tc.ok)
		}
	}
	if f, ok := FormatOf("/model/amazon.nova-pro-v1:0/converse"); !ok || f != Bedrock {
		t.Errorf("FormatOf a Converse path = %v, %v", f, ok)
	}
}
