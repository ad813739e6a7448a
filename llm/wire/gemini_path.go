package wire

import "strings"

// geminiPath reads a Gemini API path: .../models/M:generateContent or
// .../models/M:streamGenerateContent (v1, v1beta, and Vertex's
// projects/P/locations/L/publishers/google/models/M:...). It returns the
// model M and whether the method streams; ok is false for any other path.
func geminiPath(path string) (model string, stream, ok bool) {
	p := strings.TrimRight(path, "/")
	i := strings.LastIndex(p, "/models/")
	if i < 0 {
		if !strings.HasPrefix(p, "models/") {
			return "", false, false
		}
		i = -1
	}
	rest := p[i+len("/models/"):]
	m, method, found := strings.Cut(rest, ":")
	if !found || m == "" || strings.Contains(m, "/") {
		return "", false, false
	}
	switch method {
	case "generateContent":
		return m, false, true
	case "streamGenerateContent":
		return m, true, true
	}
	return "", false, false
}
