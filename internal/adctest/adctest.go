// Package adctest serves Google's OAuth2 token endpoint on a local test
// server and writes Application Default Credentials files whose token_uri
// points at it (a service account's key, gcloud's authorized_user file),
// so that code calling Google Cloud with ADC is tested offline. The
// endpoint checks what Google's checks: a service account's JWT assertion
// signed with its key, asking for the scope; a user's refresh token with
// its client's id and secret.
package adctest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Token is the access token the endpoint issues: shaped as Google's are
// (ya29.), so that a test also finds it by its shape.
const Token = "ya29.adctest-0123456789abcdefghijklmnopqrstuvwxyz"

// The authorized_user file's client and refresh token.
const (
	ClientID     = "adctest-client.apps.googleusercontent.com"
	ClientSecret = "adctest-client-secret"
	RefreshToken = "1//adctest-refresh-token"
)

// key is the service accounts' RSA key, made once per test binary.
var key = sync.OnceValues(func() (*rsa.PrivateKey, error) { return rsa.GenerateKey(rand.Reader, 2048) })

// Server is a local OAuth2 token endpoint.
type Server struct {
	// URL is the endpoint, the files' token_uri.
	URL string
	// Scope is the scope a service account's assertion must ask for.
	Scope string

	mu     sync.Mutex
	grants []string
	fail   string
}

// NewServer starts a token endpoint for tokens of scope, closed when the
// test ends.
func NewServer(t testing.TB, scope string) *Server {
	t.Helper()
	if _, err := key(); err != nil {
		t.Fatal(err)
	}
	s := &Server{Scope: scope}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL + "/token"
	return s
}

// Grants returns the grant types of the token requests answered with a
// token, in order.
func (s *Server) Grants() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.grants...)
}

// Refuse makes every later request fail with the OAuth2 error code
// (invalid_grant), as Google answers a revoked or deleted key.
func (s *Server) Refuse(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fail = code
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	refuse := func(code, why string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": why})
	}
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		refuse("invalid_request", "POST a form")
		return
	}
	s.mu.Lock()
	fail := s.fail
	s.mu.Unlock()
	if fail != "" {
		refuse(fail, "refused by the test")
		return
	}
	grant := r.PostForm.Get("grant_type")
	switch grant {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if why := s.checkAssertion(r.PostForm.Get("assertion")); why != "" {
			refuse("invalid_grant", why)
			return
		}
	case "refresh_token":
		if r.PostForm.Get("client_id") != ClientID || r.PostForm.Get("client_secret") != ClientSecret || r.PostForm.Get("refresh_token") != RefreshToken {
			refuse("invalid_grant", "wrong client or refresh token")
			return
		}
	default:
		refuse("unsupported_grant_type", grant)
		return
	}
	s.mu.Lock()
	s.grants = append(s.grants, grant)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": Token, "token_type": "Bearer", "expires_in": 3599})
}

// checkAssertion checks a service account's JWT: signed (RS256) with the
// key, issued by the account for this endpoint and the scope; it returns
// what is wrong, empty when nothing.
func (s *Server) checkAssertion(jwt string) string {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return "the assertion is not a JWT"
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return "the signature is not base64url"
	}
	k, _ := key()
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&k.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return "the assertion is not signed with the account's key"
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "the claims are not base64url"
	}
	var c struct {
		Iss, Scope, Aud string
	}
	if err := json.Unmarshal(payload, &c); err != nil {
		return "the claims are not JSON"
	}
	if c.Iss != email || c.Aud != s.URL || !strings.Contains(" "+c.Scope+" ", " "+s.Scope+" ") {
		return fmt.Sprintf("claims iss %q aud %q scope %q", c.Iss, c.Aud, c.Scope)
	}
	return ""
}

// email is the service account's.
const email = "adctest@adctest-project.iam.gserviceaccount.com"

// ServiceAccount writes a service account's key file (JSON, as the IAM
// console downloads it) into a new directory and returns its path:
// project_id project (none when empty), token_uri the server's.
func (s *Server) ServiceAccount(t testing.TB, project string) string {
	t.Helper()
	k, _ := key()
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	f := map[string]string{
		"type": "service_account", "private_key_id": "adctest-key-1",
		"private_key":  string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email": email, "client_id": "1000000000000000000001",
		"auth_uri": "https://accounts.google.com/o/oauth2/auth", "token_uri": s.URL,
	}
	if project != "" {
		f["project_id"] = project
	}
	return write(t, t.TempDir(), "service-account.json", f)
}

// AuthorizedUser writes gcloud's ADC file (`gcloud auth
// application-default login`) into dir as gcloud names it and returns its
// path: quota_project_id quota (none when empty), token_uri the server's.
func (s *Server) AuthorizedUser(t testing.TB, dir, quota string) string {
	t.Helper()
	f := map[string]string{"type": "authorized_user", "client_id": ClientID, "client_secret": ClientSecret, "refresh_token": RefreshToken, "token_uri": s.URL}
	if quota != "" {
		f["quota_project_id"] = quota
	}
	return write(t, dir, "application_default_credentials.json", f)
}

func write(t testing.TB, dir, name string, f map[string]string) string {
	t.Helper()
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
