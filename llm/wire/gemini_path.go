package wire

import "strings"

// geminiPath reads a Gemini API path: .../models/M:generateContent or
// .../models/M:streamGenerateContent (v1, v1beta, and Vertex's
// projects/P/locations/L/publishers/google/models/M:..., and its express
// mode's publishers/google/models/M:...). It returns the model M, the API
// version the path names (v1, v1beta, Vertex's v1beta1: the segment before
// models/, or before a Vertex path's projects/ or publishers/, when it
// reads as a version; empty for a path naming none) and whether the method
// streams; ok is false for any other path.
func geminiPath(path string) (model, version string, stream, ok bool) {
	p := strings.TrimRight(path, "/")
	i := strings.LastIndex(p, "/models/")
	if i < 0 {
		if !strings.HasPrefix(p, "models/") {
			return "", "", false, false
		}
		i = -1
	}
	rest := p[i+len("/models/"):]
	m, method, found := strings.Cut(rest, ":")
	if !found || m == "" || strings.Contains(m, "/") {
		return "", "", false, false
	}
	switch method {
	case "generateContent":
	case "streamGenerateContent":
		stream = true
	default:
		return "", "", false, false
	}
	if i > 0 {
		prefix := p[:i]
		if j := strings.LastIndex(prefix, "/projects/"); j >= 0 {
			prefix = prefix[:j] // Vertex: .../v1/projects/P/locations/L/publishers/google
		} else if j := strings.LastIndex(prefix, "/publishers/"); j >= 0 {
			prefix = prefix[:j] // Vertex's express mode: .../v1beta1/publishers/google
		}
		if seg := prefix[strings.LastIndex(prefix, "/")+1:]; isAPIVersion(seg) {
			version = seg
		}
	}
	return m, version, stream, true
}

// isAPIVersion reports whether seg reads as a Google API version: v, a
// number, then optionally alpha or beta and a number (v1, v1beta,
// v1beta1, v1alpha).
func isAPIVersion(seg string) bool {
	rest, ok := strings.CutPrefix(seg, "v")
	digits := func(s string) string { return strings.TrimLeft(s, "0123456789") }
	if !ok || rest == "" || digits(rest) == rest {
		return false
	}
	rest = digits(rest)
	for _, stage := range []string{"alpha", "beta"} {
		if r, ok := strings.CutPrefix(rest, stage); ok {
			return digits(r) == ""
		}
	}
	return rest == ""
}
