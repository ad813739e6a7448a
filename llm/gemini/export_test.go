package gemini

import "context"

// SetOnGCE replaces the metadata server probe with answer until the test
// ends (restore), so that a test of missing credentials probes no network.
func SetOnGCE(answer bool) (restore func()) {
	old := onGCE
	onGCE = func(context.Context) bool { return answer }
	return func() { onGCE = old }
}

// VertexPath exports vertexPath's reading for tests.
func VertexPath(path string) (version, project, location, publisher, method string, err error) {
	r, err := vertexPath(path)
	return r.version, r.project, r.location, r.publisher, r.method, err
}
