package gemini_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tapeloop/tapeloop/internal/adctest"
	"github.com/tapeloop/tapeloop/llm"
	"github.com/tapeloop/tapeloop/llm/gemini"
	"github.com/tapeloop/tapeloop/llm/wire"
)

const jwtGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// env is an environment for OpenOptions.Getenv: these variables, no others.
func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// hello answers every call with a short text.
func hello(*wire.Call) (*llm.Response, *wire.Error) {
	return &llm.Response{Message: llm.AssistantMessage("Hello."), FinishReason: llm.FinishStop, Usage: llm.Usage{InputTokens: 2, OutputTokens: 1}}, nil
}

// vertexServer starts a local "Vertex AI" answering hello.
func vertexServer(t *testing.T) (*server, string) {
	s := &server{t: t, answer: hello}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// TestVertexGenerate: a native call goes to Vertex AI's path with the
// project the service account names and the location of
// GOOGLE_CLOUD_LOCATION (GOOGLE_CLOUD_PROJECT, when set, names the
// project), with an access token from the credentials' token endpoint
// (asked once, then reused) and no API key.
func TestVertexGenerate(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "sa-project")
	for _, tc := range []struct {
		noStream bool
		project  string
		want     string
	}{
		{false, "", "/v1beta1/projects/sa-project/locations/europe-west4/publishers/google/models/gemini-test:streamGenerateContent"},
		{true, "env-project", "/v1beta1/projects/env-project/locations/europe-west4/publishers/google/models/gemini-test:generateContent"},
	} {
		s, base := vertexServer(t)
		m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{BaseURL: base, NoStream: tc.noStream,
			Getenv: env(map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "europe-west4", gemini.ProjectEnv: tc.project})})
		if err != nil {
			t.Fatal(err)
		}
		if n := m.(interface{ Name() string }).Name(); n != "vertex/gemini-test" {
			t.Errorf("name %q", n)
		}
		before := len(tokens.Grants())
		for range 2 {
			resp, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Message.Content != "Hello." {
				t.Errorf("answer %+v", resp)
			}
		}
		if got := tokens.Grants()[before:]; !slices.Equal(got, []string{jwtGrant}) {
			t.Errorf("token requests %q, want one JWT grant for both calls", got)
		}
		for _, r := range s.reqs {
			if r.URL.Path != tc.want || r.Header.Get("Authorization") != "Bearer "+adctest.Token || r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key") {
				t.Errorf("sent %s with Authorization %q, key %q %q; want %s with the token", r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Goog-Api-Key"), r.URL.Query().Get("key"), tc.want)
			}
		}
	}
}

// TestVertexForward: a bridged agent's Gemini request goes to Vertex AI as
// the agent sent it, body byte for byte, its headers kept but for the
// credentials (its key header, its Authorization and ?key= gone, the
// access token in); the path keeps the agent's project and location, and
// a path naming none (express mode, the Gemini API's) gets the settings';
// the model of the path is replaced when another is asked.
func TestVertexForward(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "sa-project")
	body := []byte(`{"contents": [{"role": "user", "parts": [{"text": "Hi."}]}],
  "generationConfig": {"temperature": 1.5}}`)
	for _, tc := range []struct{ agentPath, model, wantPath, replaced string }{
		{"/v1beta1/projects/agent-proj/locations/us-east5/publishers/google/models/gemini-agent:streamGenerateContent", "gemini-agent",
			"/v1beta1/projects/agent-proj/locations/us-east5/publishers/google/models/gemini-agent:streamGenerateContent", ""},
		{"/v1/projects/agent-proj/locations/global/publishers/google/models/gemini-agent:generateContent", "gemini-other",
			"/v1/projects/agent-proj/locations/global/publishers/google/models/gemini-other:generateContent", "gemini-agent"},
		{"/v1beta1/publishers/google/models/gemini-agent:generateContent", "gemini-agent",
			"/v1beta1/projects/sa-project/locations/europe-west4/publishers/google/models/gemini-agent:generateContent", ""},
		{"/v1beta/models/gemini-agent:streamGenerateContent", "gemini-agent",
			"/v1beta1/projects/sa-project/locations/europe-west4/publishers/google/models/gemini-agent:streamGenerateContent", ""},
		{"/v1/models/gemini-agent:generateContent", "gemini-agent",
			"/v1/projects/sa-project/locations/europe-west4/publishers/google/models/gemini-agent:generateContent", ""},
	} {
		s, base := vertexServer(t)
		m, err := llm.Open(t.Context(), "vertex/"+tc.model, &llm.OpenOptions{BaseURL: base,
			Getenv: env(map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "europe-west4"})})
		if err != nil {
			t.Fatal(err)
		}
		fw := agentRequest(t, tc.agentPath, body)
		resp, err := m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request)
		if err != nil {
			t.Fatalf("%s: %v", tc.agentPath, err)
		}
		if resp.Message.Content != "Hello." {
			t.Errorf("%s: answer %+v", tc.agentPath, resp)
		}
		r := s.reqs[0]
		if r.URL.Path != tc.wantPath || fw.Replaced != tc.replaced || !bytes.Equal(s.bodies[0], body) {
			t.Errorf("%s: sent to %s (replaced %q), body %s; want %s", tc.agentPath, r.URL.Path, fw.Replaced, s.bodies[0], tc.wantPath)
		}
		if r.Header.Values("Authorization")[0] != "Bearer "+adctest.Token || len(r.Header.Values("Authorization")) != 1 ||
			r.Header.Get("X-Goog-Api-Key") != "" || r.URL.Query().Has("key") || r.Header.Get("X-Goog-Api-Client") != "genai-go/1" {
			t.Errorf("%s: headers %v, query %s", tc.agentPath, r.Header, r.URL.RawQuery)
		}
		if fw.Call.Stream != (r.URL.Query().Get("alt") == "sse") {
			t.Errorf("%s: query %s", tc.agentPath, r.URL.RawQuery)
		}
	}
}

// agentRequest is the request a genai agent sent the bridge at path: its
// key in a header and the query, the bridge's dummy bearer token.
func agentRequest(t *testing.T, path string, body []byte) *wire.Forwarded {
	t.Helper()
	call, err := wire.Decode(path, body)
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"key": {"agent-key"}}
	if call.Stream {
		q.Set("alt", "sse")
	}
	return &wire.Forwarded{Call: call, URL: &url.URL{Path: path, RawQuery: q.Encode()}, Body: body,
		Header: http.Header{"X-Goog-Api-Key": {"agent-key"}, "Authorization": {"Bearer bridge-dummy-token"}, "Content-Type": {"application/json"}, "X-Goog-Api-Client": {"genai-go/1"}}}
}

// TestVertexHosts: without a base URL, a request goes to its location's
// host, as genai chooses it (global: aiplatform.googleapis.com; us and eu:
// the multi-region hosts), and a location that is not a host label is
// refused with nothing sent. The HTTP client's transport answers
// googleapis.com locally, so nothing leaves the machine; it carries the
// model's calls alone, not the token requests (a fault-injecting
// transport counts calls).
func TestVertexHosts(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "sa-project")
	s, base := vertexServer(t)
	local, _ := url.Parse(base)
	var mu sync.Mutex
	var hosts []string
	hc := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
		mu.Lock()
		hosts = append(hosts, r.URL.Scheme+"://"+r.URL.Host)
		mu.Unlock()
		r = r.Clone(r.Context())
		r.URL.Scheme, r.URL.Host = local.Scheme, local.Host
		return http.DefaultTransport.RoundTrip(r)
	})}
	m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{HTTPClient: hc, NoStream: true,
		Getenv: env(map[string]string{gemini.CredentialsEnv: sa, gemini.LocationEnv: "us-central1"})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}}); err != nil {
		t.Fatal(err)
	}
	for _, loc := range []string{"us-east5", "global", "eu"} {
		fw := agentRequest(t, "/v1beta1/projects/p/locations/"+loc+"/publishers/google/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
		if _, err := m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"https://us-central1-aiplatform.googleapis.com", "https://us-east5-aiplatform.googleapis.com", "https://aiplatform.googleapis.com", "https://aiplatform.eu.rep.googleapis.com"}
	if !slices.Equal(hosts, want) {
		t.Errorf("hosts %q, want %q", hosts, want)
	}
	if g := tokens.Grants(); len(g) != 1 {
		t.Errorf("token requests %q, want one, around the HTTP client", g)
	}
	sent := len(s.reqs)
	fw := agentRequest(t, "/v1beta1/projects/p/locations/evil.example/publishers/google/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
	_, err = m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request)
	if !errors.Is(err, wire.ErrForward) || !strings.Contains(err.Error(), `"evil.example" is not a Google Cloud location`) || len(s.reqs) != sent {
		t.Errorf("a location that is no host label: %v, %d requests sent", err, len(s.reqs)-sent)
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestVertexCredentialSources: gcloud's authorized_user file, found in
// CLOUDSDK_CONFIG or under HOME, is refreshed with its refresh token and
// bills its quota project (GOOGLE_CLOUD_QUOTA_PROJECT, when set, instead);
// GOOGLE_APPLICATION_CREDENTIALS comes before gcloud's file.
func TestVertexCredentialSources(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "sa-project")
	config := t.TempDir()
	tokens.AuthorizedUser(t, config, "billing-project")
	home := t.TempDir()
	tokens.AuthorizedUser(t, filepath.Join(home, ".config", "gcloud"), "home-billing")
	for _, tc := range []struct {
		name         string
		env          map[string]string
		grant, quota string
	}{
		{"CLOUDSDK_CONFIG", map[string]string{gemini.CloudSDKConfigEnv: config, "HOME": home}, "refresh_token", "billing-project"},
		{"HOME", map[string]string{"HOME": home}, "refresh_token", "home-billing"},
		{"quota variable", map[string]string{"HOME": home, gemini.QuotaProjectEnv: "other-billing"}, "refresh_token", "other-billing"},
		{"GOOGLE_APPLICATION_CREDENTIALS first", map[string]string{gemini.CredentialsEnv: sa, "HOME": home}, jwtGrant, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, base := vertexServer(t)
			tc.env[gemini.ProjectEnv] = "p"
			m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{BaseURL: base, NoStream: true, Getenv: env(tc.env)})
			if err != nil {
				t.Fatal(err)
			}
			before := len(tokens.Grants())
			if _, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}}); err != nil {
				t.Fatal(err)
			}
			fw := agentRequest(t, "/v1beta1/projects/p/locations/global/publishers/google/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
			if _, err := m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request); err != nil {
				t.Fatal(err)
			}
			if got := tokens.Grants()[before:]; !slices.Equal(got, []string{tc.grant}) {
				t.Errorf("token requests %q, want one %s", got, tc.grant)
			}
			for i, r := range s.reqs {
				if r.Header.Get("Authorization") != "Bearer "+adctest.Token || r.Header.Get("X-Goog-User-Project") != tc.quota {
					t.Errorf("request %d: Authorization %q, X-Goog-User-Project %q; want the token and %q", i, r.Header.Get("Authorization"), r.Header.Get("X-Goog-User-Project"), tc.quota)
				}
			}
		})
	}
}

// TestVertexMetadataServer: with no file, the metadata server gives the
// token (asked with Metadata-Flavor: Google) and the project. The
// metadata library reads GCE_METADATA_HOST from the process, so the test
// sets it there.
func TestVertexMetadataServer(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Metadata-Flavor") != "Google" {
			http.Error(w, "no Metadata-Flavor", http.StatusForbidden)
			return
		}
		mu.Lock()
		asked = append(asked, r.URL.Path)
		mu.Unlock()
		w.Header().Set("Metadata-Flavor", "Google")
		switch r.URL.Path {
		case "/computeMetadata/v1/instance/service-accounts/default/token":
			if !strings.Contains(r.URL.Query().Get("scopes"), gemini.Scope) {
				http.Error(w, "scopes "+r.URL.RawQuery, http.StatusBadRequest)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"access_token":"`+adctest.Token+`","expires_in":3599,"token_type":"Bearer"}`)
		case "/computeMetadata/v1/project/project-id":
			io.WriteString(w, "meta-project")
		default:
			http.NotFound(w, r)
		}
	}))
	defer meta.Close()
	host := strings.TrimPrefix(meta.URL, "http://")
	t.Setenv(gemini.MetadataHostEnv, host)
	defer gemini.SetOnGCE(false)() // GCE_METADATA_HOST alone says there is one
	s, base := vertexServer(t)
	m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{BaseURL: base, NoStream: true,
		Getenv: env(map[string]string{gemini.MetadataHostEnv: host, "HOME": t.TempDir()})})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}}); err != nil {
		t.Fatal(err)
	}
	r := s.reqs[0]
	if r.URL.Path != "/v1beta1/projects/meta-project/locations/global/publishers/google/models/gemini-test:generateContent" || r.Header.Get("Authorization") != "Bearer "+adctest.Token {
		t.Errorf("sent %s with Authorization %q", r.URL.Path, r.Header.Get("Authorization"))
	}
	if !slices.Contains(asked, "/computeMetadata/v1/instance/service-accounts/default/token") {
		t.Errorf("the metadata server was asked %q", asked)
	}
}

// TestVertexMissingCredentials: credentials found nowhere, or a file that
// is not one, fail llm.Open with an error naming each place looked (or the
// file and what is wrong with it), wrapping llm.ErrMissingKey, before any
// request and without probing a network.
func TestVertexMissingCredentials(t *testing.T) {
	defer gemini.SetOnGCE(false)()
	home, dir := t.TempDir(), t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notJSON := write("not-json.json", "type: service_account\n")
	clientSecret := write("client-secret.json", `{"installed":{"client_id":"x","client_secret":"y"}}`)
	apiKey := write("key.json", `{"type":"api_key","key":"x"}`)
	gcloud := t.TempDir()
	write2 := filepath.Join(gcloud, "application_default_credentials.json")
	if err := os.WriteFile(write2, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing", map[string]string{"HOME": home}, []string{"no Application Default Credentials", "GOOGLE_APPLICATION_CREDENTIALS is not set",
			filepath.Join(home, ".config", "gcloud", "application_default_credentials.json") + " does not exist", "gcloud auth application-default login", "no metadata server answered", "GCE_METADATA_HOST is not set"}},
		{"no home", map[string]string{}, []string{"GOOGLE_APPLICATION_CREDENTIALS is not set", "no home directory", "no metadata server answered"}},
		{"a missing file", map[string]string{gemini.CredentialsEnv: filepath.Join(dir, "gone.json")}, []string{"GOOGLE_APPLICATION_CREDENTIALS=" + filepath.Join(dir, "gone.json"), "no such file"}},
		{"not JSON", map[string]string{gemini.CredentialsEnv: notJSON}, []string{notJSON, "not a credentials file"}},
		{"a client secret", map[string]string{gemini.CredentialsEnv: clientSecret}, []string{clientSecret, `no "type"`}},
		{"another type", map[string]string{gemini.CredentialsEnv: apiKey}, []string{apiKey, `"api_key" are not Application Default Credentials`}},
		{"gcloud's file broken", map[string]string{gemini.CloudSDKConfigEnv: gcloud}, []string{"gcloud's file " + write2, "not a credentials file"}},
	} {
		m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{Getenv: env(tc.env)})
		if m != nil || !errors.Is(err, llm.ErrMissingKey) {
			t.Errorf("%s: got %v, %v; want a missing key", tc.name, m, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error does not say %q:\n%v", tc.name, w, err)
			}
		}
	}
}

// TestVertexTokenRefused: a token endpoint refusing the credentials fails
// the call (native or forwarded) as an authentication error naming where
// the credentials came from; nothing reaches Vertex AI.
func TestVertexTokenRefused(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "sa-project")
	tokens.Refuse("invalid_grant")
	s, base := vertexServer(t)
	m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{BaseURL: base, Getenv: env(map[string]string{gemini.CredentialsEnv: sa})})
	if err != nil {
		t.Fatal(err)
	}
	fw := agentRequest(t, "/v1beta1/projects/p/locations/global/publishers/google/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
	for name, ctx := range map[string]*wire.Forwarded{"native": nil, "forwarded": fw} {
		c := t.Context()
		if ctx != nil {
			c = wire.WithForwarded(c, ctx)
		}
		_, err := m.Generate(c, &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}})
		var pe *llm.ProviderError
		if !errors.As(err, &pe) || pe.Kind != llm.ErrAuth || pe.Provider != "vertex" || !strings.Contains(pe.Message, sa) || !strings.Contains(pe.Message, "invalid_grant") {
			t.Errorf("%s: %v (%+v), want an auth error naming %s and invalid_grant", name, err, pe, sa)
		}
	}
	if len(s.reqs) != 0 {
		t.Errorf("Vertex AI got %d requests", len(s.reqs))
	}
}

// TestVertexNoProject: credentials naming no project, and no
// GOOGLE_CLOUD_PROJECT: a native call, or a forwarded path naming no
// project, fails naming the variable, nothing sent; a forwarded path
// naming its project is sent.
func TestVertexNoProject(t *testing.T) {
	tokens := adctest.NewServer(t, gemini.Scope)
	sa := tokens.ServiceAccount(t, "")
	s, base := vertexServer(t)
	m, err := llm.Open(t.Context(), "vertex/gemini-test", &llm.OpenOptions{BaseURL: base, Getenv: env(map[string]string{gemini.CredentialsEnv: sa})})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Generate(t.Context(), &llm.Request{Messages: []llm.Message{llm.UserMessage("Hi.")}})
	if !errors.Is(err, llm.ErrBadRequest) || !strings.Contains(err.Error(), "set GOOGLE_CLOUD_PROJECT") {
		t.Errorf("native: %v", err)
	}
	fw := agentRequest(t, "/v1beta/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
	if _, err := m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request); !errors.Is(err, wire.ErrForward) || !strings.Contains(err.Error(), "set GOOGLE_CLOUD_PROJECT") {
		t.Errorf("forwarded without a project: %v", err)
	}
	if len(s.reqs) != 0 {
		t.Fatalf("Vertex AI got %d requests", len(s.reqs))
	}
	fw = agentRequest(t, "/v1beta1/projects/p/locations/global/publishers/google/models/gemini-test:generateContent", []byte(`{"contents":[]}`))
	if _, err := m.Generate(wire.WithForwarded(t.Context(), fw), &fw.Call.Request); err != nil || len(s.reqs) != 1 {
		t.Errorf("forwarded with its project: %v, %d sent", err, len(s.reqs))
	}
}

// TestVertexPath reads request paths for Vertex AI, and refuses those it
// cannot place.
func TestVertexPath(t *testing.T) {
	for _, tc := range []struct{ path, want, err string }{
		{"/v1beta1/projects/p/locations/l/publishers/google/models/m:generateContent", "v1beta1 p l google generateContent", ""},
		{"/v1/projects/p/locations/l/publishers/google/models/m:streamGenerateContent", "v1 p l google streamGenerateContent", ""},
		{"/v1beta1/publishers/google/models/m:generateContent", "v1beta1   google generateContent", ""},
		{"/v1beta/models/m:generateContent", "v1beta1   google generateContent", ""},
		{"/v1alpha/models/m:generateContent", "v1beta1   google generateContent", ""},
		{"/v1/models/m:generateContent", "v1   google generateContent", ""},
		{"/v1beta1/projects/p/publishers/google/models/m:generateContent", "", "a project without a location"},
		{"/v1beta1/endpoints/e/models/m:generateContent", "", `unexpected "endpoints"`},
		{"/v1beta1/projects/p/locations/l/extra/models/m:generateContent", "", `unexpected "extra"`},
	} {
		v, p, l, pub, method, err := gemini.VertexPath(tc.path)
		got := strings.Join([]string{v, p, l, pub, method}, " ")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want an error saying %q", tc.path, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
}
