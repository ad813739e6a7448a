package evalrun

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/tools"
	"github.com/tapeloop/tapeloop/tools/toolkit"
)

// fetchScenario's tool fetches a page of a host with http.Get.
const fetchScenario = `format: tapeloop/v1
setup:
  tools: [fetch]
input: [{role: user, content: "Fetch it."}]
tape:
  - response:
      tool_calls: [{id: call_1, name: fetch, arguments: {}}]
  - response: {content: "fetched"}
`

// TestReplayAllowHost: a replay refuses a Go tool's http.Get, naming the
// address on stdout, and exits 1; --allow-host lets it through.
func TestReplayAllowHost(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "page") }))
	defer srv.Close()
	fetch := toolkit.NewFactory("fetch", "fetches a page",
		func(name string, _ *toolkit.Env, _ struct{}) (tools.Tool, error) {
			return tools.New(tools.Spec{Name: name}, func(_ context.Context, _ struct{}) (*tools.Result, error) {
				resp, err := http.Get(srv.URL + "/page")
				if err != nil {
					return tools.Success("unreachable"), nil
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return tools.Success(string(b)), nil
			})
		})
	dir := newScenarios(t, map[string]string{"fetch.yaml": fetchScenario})
	main := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		code := Main(context.Background(), args, &out, &errb, &Options{Tools: []*toolkit.Factory{fetch}, Stdin: strings.NewReader("")})
		return code, out.String() + errb.String()
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	code, out := main("replay", "--update", dir)
	if want := "a request through http.DefaultTransport was refused during the replay: GET " + srv.URL + "/page (" + host + ")"; code != exitFailed || !strings.Contains(out, want) {
		t.Errorf("replay: exit %d, want %d and %q:\n%s", code, exitFailed, want, out)
	}
	if code, out := main("replay", "--update", "--allow-host", host, dir); code != exitOK {
		t.Errorf("replay --allow-host %s: exit %d:\n%s", host, code, out)
	}
}
