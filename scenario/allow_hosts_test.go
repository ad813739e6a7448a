package scenario_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/scenario"
)

func allowScenario(hosts string) string {
	return "format: tapeloop/v1\nsetup:\n  tools: [read_file]\n  allow_hosts: " + hosts + "\ninput:\n  - {role: user, content: hi}\ntape: []\n"
}

// TestAllowHosts: setup.allow_hosts lists hosts (any port), hosts and
// ports, IPv4 and IPv6 addresses, or * for everything, as written.
func TestAllowHosts(t *testing.T) {
	s, err := scenario.Parse([]byte(allowScenario(`[localhost, "127.0.0.1:8931", api.example.com, "[::1]:443", "::1", weather-api.internal]`)), "a.yaml", "a")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"localhost", "127.0.0.1:8931", "api.example.com", "[::1]:443", "::1", "weather-api.internal"}
	if !slices.Equal(s.Setup.AllowHosts, want) {
		t.Errorf("setup.allow_hosts = %q, want %q", s.Setup.AllowHosts, want)
	}
	s, err = scenario.Parse([]byte(allowScenario(`["*"]`)), "a.yaml", "a")
	if err != nil || !slices.Equal(s.Setup.AllowHosts, []string{"*"}) {
		t.Errorf("*: %q, %v", s.Setup.AllowHosts, err)
	}
}

// TestAllowHostsErrors: an entry that is not a host, a host and port, or
// *, is an error at its line, as is one listed twice, a list that is not
// one, and the key on a scenario whose agent is a program (its sandbox
// reaches nothing but the bridge, and the key would change nothing).
func TestAllowHostsErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{allowScenario(`localhost`), "a.yaml:4: setup.allow_hosts: want a sequence"},
		{allowScenario("\n    - localhost\n    - https://api.example.com/v1"), `a.yaml:6: setup.allow_hosts: "https://api.example.com/v1" is a URL: want a host or HOST:PORT`},
		{allowScenario(`["api.example.com/v1"]`), `a.yaml:4: setup.allow_hosts: "api.example.com/v1" is a URL: want a host or HOST:PORT`},
		{allowScenario(`["user@api.example.com"]`), `a.yaml:4: setup.allow_hosts: "user@api.example.com" is a URL`},
		{allowScenario(`["localhost:http"]`), `a.yaml:4: setup.allow_hosts: "localhost:http": the port is not a number from 1 to 65535`},
		{allowScenario(`["localhost:0"]`), `a.yaml:4: setup.allow_hosts: "localhost:0": the port is not a number from 1 to 65535`},
		{allowScenario(`["localhost:70000"]`), `a.yaml:4: setup.allow_hosts: "localhost:70000": the port`},
		{allowScenario(`[":8080"]`), `a.yaml:4: setup.allow_hosts: ":8080": no host`},
		{allowScenario(`[""]`), `a.yaml:4: setup.allow_hosts: "": no host`},
		{allowScenario(`["-bad.example.com"]`), `a.yaml:4: setup.allow_hosts: "-bad.example.com" is not a host name or an IP address`},
		{allowScenario(`["exa mple.com"]`), `a.yaml:4: setup.allow_hosts: "exa mple.com" is not a host name`},
		{allowScenario(`["*.example.com"]`), `a.yaml:4: setup.allow_hosts: "*.example.com" is not a host name`},
		{allowScenario(`[localhost, LocalHost]`), `a.yaml:4: setup.allow_hosts: "LocalHost" is listed twice`},
		{allowScenario(`["*", localhost]`), `a.yaml:4: setup.allow_hosts: * allows every host: list nothing beside it`},
		{"format: tapeloop/v1\nsetup:\n  agent: {command: [node]}\n  allow_hosts: [localhost]\ninput:\n  - {role: user, content: hi}\ntape: []\n",
			"a.yaml:4: setup.allow_hosts: a program agent (setup.agent.command) reaches nothing but the bridge from its sandbox"},
	} {
		_, err := scenario.Parse([]byte(tc.text), "a.yaml", "a")
		if err == nil || !errors.Is(err, scenario.ErrScenario) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s\n got %v\nwant an ErrScenario containing %q", tc.text, err, tc.want)
		}
	}
}
