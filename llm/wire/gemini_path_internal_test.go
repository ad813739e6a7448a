package wire

import "testing"

func TestGeminiPath(t *testing.T) {
	for _, tc := range []struct {
		path          string
		model         string
		stream, valid bool
	}{
		{"/v1beta/models/gemini-2.5-flash:generateContent", "gemini-2.5-flash", false, true},
		{"/v1/models/gemini-2.5-pro:streamGenerateContent", "gemini-2.5-pro", true, true},
		{"/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0:generateContent", "gemini-2.0", false, true},
		{"models/m:streamGenerateContent/", "m", true, true},
		{"/v1beta/models/m:countTokens", "", false, false},
		{"/v1beta/models/:generateContent", "", false, false},
		{"/v1/chat/completions", "", false, false},
		{"/v1beta/models/m", "", false, false},
	} {
		m, s, ok := geminiPath(tc.path)
		if m != tc.model || s != tc.stream || ok != tc.valid {
			t.Errorf("geminiPath(%q) = %q, %v, %v; want %q, %v, %v", tc.path, m, s, ok, tc.model, tc.stream, tc.valid)
		}
	}
}
