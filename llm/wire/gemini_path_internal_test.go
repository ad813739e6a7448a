package wire

import "testing"

func TestGeminiPath(t *testing.T) {
	for _, tc := range []struct {
		path           string
		model, version string
		stream, valid  bool
	}{
		{"/v1beta/models/gemini-2.5-flash:generateContent", "gemini-2.5-flash", "v1beta", false, true},
		{"/v1/models/gemini-2.5-pro:streamGenerateContent", "gemini-2.5-pro", "v1", true, true},
		{"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0:generateContent", "gemini-2.0", "v1", false, true},
		{"/v1beta1/projects/v2/locations/us-central1/publishers/google/models/g:generateContent", "g", "v1beta1", false, true},
		{"/v1beta1/publishers/google/models/g:streamGenerateContent", "g", "v1beta1", true, true},
		{"/proxy/v1alpha/models/m:generateContent", "m", "v1alpha", false, true},
		{"/gemini/models/m:generateContent", "m", "", false, true},
		{"/v/models/m:generateContent", "m", "", false, true},
		{"/v1gamma/models/m:generateContent", "m", "", false, true},
		{"models/m:streamGenerateContent/", "m", "", true, true},
		{"/models/m:generateContent", "m", "", false, true},
		// Vertex paths naming no version: a location or publisher that reads
		// as one is not the version.
		{"/projects/p/locations/v1/publishers/google/models/g:generateContent", "g", "", false, true},
		{"/publishers/v2/models/g:generateContent", "g", "", false, true},
		{"/v1beta/models/m:countTokens", "", "", false, false},
		{"/v1beta/models/:generateContent", "", "", false, false},
		{"/v1/chat/completions", "", "", false, false},
		{"/v1beta/models/m", "", "", false, false},
	} {
		m, v, s, ok := geminiPath(tc.path)
		if m != tc.model || v != tc.version || s != tc.stream || ok != tc.valid {
			t.Errorf("geminiPath(%q) = %q, %q, %v, %v; want %q, %q, %v, %v", tc.path, m, v, s, ok, tc.model, tc.version, tc.stream, tc.valid)
		}
	}
}
