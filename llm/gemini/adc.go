package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"cloud.google.com/go/compute/metadata"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/tapeloop/tapeloop/llm"
)

// The variables and defaults of Application Default Credentials.
const (
	// CredentialsEnv names an ADC file (a service account's key, gcloud's
	// authorized_user file, a workload identity configuration).
	CredentialsEnv = "GOOGLE_APPLICATION_CREDENTIALS"
	// CloudSDKConfigEnv is gcloud's configuration directory; unset means
	// ~/.config/gcloud (%APPDATA%\gcloud on Windows).
	CloudSDKConfigEnv = "CLOUDSDK_CONFIG"
	// MetadataHostEnv says the metadata server's host (and that there is
	// one); unset means the metadata server is probed at 169.254.169.254.
	MetadataHostEnv = "GCE_METADATA_HOST"
	// QuotaProjectEnv names the project billed for the calls; unset means
	// the ADC file's quota_project_id, if any.
	QuotaProjectEnv = "GOOGLE_CLOUD_QUOTA_PROJECT"
	// Scope is the OAuth2 scope the access tokens are asked for.
	Scope = "https://www.googleapis.com/auth/cloud-platform"
)

// adcFile is the name of gcloud's ADC file in its configuration directory.
const adcFile = "application_default_credentials.json"

// maxADCFile bounds an ADC file read: they are a few kilobytes.
const maxADCFile = 1 << 20

// tokenTimeout bounds one token request, so that a token endpoint that
// never answers fails the call instead of hanging it.
const tokenTimeout = 30 * time.Second

// onGCE reports whether a metadata server answers; a seam, so that a test
// of missing credentials probes no network. The library caches its answer
// for the process.
var onGCE = metadata.OnGCEWithContext

// adc is the Application Default Credentials found.
type adc struct {
	// tokens gives the access tokens, refreshed before they expire.
	tokens oauth2.TokenSource
	// project is the project the credentials name (a service account's
	// project_id, the metadata server's project); empty when none.
	project string
	// quota is the ADC file's quota_project_id; empty when none.
	quota string
	// source says where they were found, for errors: "the file F
	// (GOOGLE_APPLICATION_CREDENTIALS)", "the metadata server".
	source string
}

// findADC finds Application Default Credentials in the order Google's
// libraries look (google.FindDefaultCredentials): the file
// GOOGLE_APPLICATION_CREDENTIALS names, gcloud's file
// (`gcloud auth application-default login`), then the metadata server of
// Google Cloud's runtimes. Unlike FindDefaultCredentials it reads the
// variables through opts (OpenOptions.Getenv) as every provider does, and
// its error names each place looked. Token requests go through
// http.DefaultTransport (which honours the proxy variables), each bounded
// by tokenTimeout, never through OpenOptions.HTTPClient: that client
// carries the model's calls, and a transport counting them (llm/faults'
// "the n-th call fails") must not count a token request. The error of
// finding none wraps llm.ErrMissingKey.
func findADC(ctx context.Context, opts *llm.OpenOptions) (*adc, error) {
	client := &http.Client{Timeout: tokenTimeout, Transport: http.DefaultTransport}
	tctx := context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, client)
	if name := opts.Env(CredentialsEnv); name != "" {
		a, err := adcFromFile(tctx, name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s=%s: %w", llm.ErrMissingKey, CredentialsEnv, name, err)
		}
		a.source = fmt.Sprintf("the file %s (%s)", name, CredentialsEnv)
		return a, nil
	}
	gcloud := gcloudFile(opts)
	if gcloud != "" {
		a, err := adcFromFile(tctx, gcloud)
		if err == nil {
			a.source = "gcloud's file " + gcloud
			return a, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: gcloud's file %s: %w", llm.ErrMissingKey, gcloud, err)
		}
	}
	if opts.Env(MetadataHostEnv) != "" || onGCE(ctx) {
		project, _ := metadata.ProjectIDWithContext(ctx)
		return &adc{tokens: google.ComputeTokenSource("", Scope), project: project, source: "the metadata server"}, nil
	}
	where := "gcloud's file (no home directory to look in)"
	if gcloud != "" {
		where = "gcloud's file " + gcloud + " does not exist (`gcloud auth application-default login` writes it)"
	}
	return nil, fmt.Errorf("%w: no Application Default Credentials: %s is not set, %s, and no metadata server answered (%s is not set, and this is not a Google Cloud runtime)",
		llm.ErrMissingKey, CredentialsEnv, where, MetadataHostEnv)
}

// gcloudFile is where gcloud keeps the ADC file: $CLOUDSDK_CONFIG, else
// ~/.config/gcloud (%APPDATA%\gcloud on Windows); empty when neither
// variable it needs is set.
func gcloudFile(opts *llm.OpenOptions) string {
	if dir := opts.Env(CloudSDKConfigEnv); dir != "" {
		return filepath.Join(dir, adcFile)
	}
	if runtime.GOOS == "windows" {
		if dir := opts.Env("APPDATA"); dir != "" {
			return filepath.Join(dir, "gcloud", adcFile)
		}
		return ""
	}
	if home := opts.Env("HOME"); home != "" {
		return filepath.Join(home, ".config", "gcloud", adcFile)
	}
	return ""
}

// adcFromFile reads the ADC file name: its type must be one of ADC's (a
// client secret file or another JSON is refused, as the library's
// type-checked reader wants), and its quota project is kept.
func adcFromFile(ctx context.Context, name string) (*adc, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxADCFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxADCFile {
		return nil, fmt.Errorf("larger than %d bytes: not a credentials file", maxADCFile)
	}
	var head struct {
		Type         string `json:"type"`
		QuotaProject string `json:"quota_project_id"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("not a credentials file: %w", err)
	}
	switch t := google.CredentialsType(head.Type); t {
	case google.ServiceAccount, google.AuthorizedUser, google.ExternalAccount, google.ExternalAccountAuthorizedUser, google.ImpersonatedServiceAccount:
		creds, err := google.CredentialsFromJSONWithTypeAndParams(ctx, data, t, google.CredentialsParams{Scopes: []string{Scope}})
		if err != nil {
			return nil, err
		}
		return &adc{tokens: creds.TokenSource, project: creds.ProjectID, quota: head.QuotaProject}, nil
	case "":
		return nil, errors.New(`no "type": not a credentials file`)
	default:
		return nil, fmt.Errorf("credentials of type %q are not Application Default Credentials", head.Type)
	}
}
