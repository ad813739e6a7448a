package bridge

import (
	"slices"
	"strings"
)

// passedEnv names the variables of tapeloop's own environment a command
// agent inherits: what finds programs and shapes their output, nothing
// that could carry a credential. Everything else is left out, including
// every provider key; setup.agent.env adds what an agent needs on top.
var passedEnv = map[string]bool{
	"PATH": true, "LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true,
}

// dummyCredentials are the variables the model SDKs read a credential or
// credential file from. A command agent gets each set to the run's dummy
// key (an empty value for the file-naming ones), so an SDK that ignores
// the base URL fails against the real vendor instead of calling it with a
// real key from tapeloop's environment.
var dummyCredentials = []string{
	"OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
	"GEMINI_API_KEY", "GOOGLE_API_KEY",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"OPENROUTER_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY",
	"GITHUB_TOKEN", "HF_TOKEN", "DEEPSEEK_API_KEY", "XAI_API_KEY",
	"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "COHERE_API_KEY",
}

// emptyCredentials name a credential file or profile; they are set empty
// so that nothing points an SDK at the user's real one.
var emptyCredentials = []string{
	"GOOGLE_APPLICATION_CREDENTIALS", "AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
}

// agentEnviron is the environment a command agent starts from: the
// variables of environ that passedEnv or pass names or that start with
// LC_, HOME set to home and TMPDIR to tmp (scratch directories of the
// run), every credential variable a dummy, and then the variables of
// environ that credentials names (setup.agent.pass_credentials), which
// replace their dummies. A named variable environ does not set is left
// out (a credential keeps its dummy).
func agentEnviron(environ []string, home, tmp, key string, pass, credentials []string) []string {
	var env, creds []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case slices.Contains(credentials, name):
			creds = append(creds, kv)
		case passedEnv[name] || strings.HasPrefix(name, "LC_") || slices.Contains(pass, name):
			env = append(env, kv)
		}
	}
	env = append(env, "HOME="+home, "TMPDIR="+tmp)
	for _, k := range dummyCredentials {
		env = append(env, k+"="+key)
	}
	for _, k := range emptyCredentials {
		env = append(env, k+"=")
	}
	// Later entries win (os/exec keeps the last of a name).
	return append(env, creds...)
}
