package textcalls

import (
	"reflect"
	"strings"
	"testing"
)

// TestDeclaredFamily: a family the package does not know, declared with its
// markers and argument encoding, is extracted; without the declaration the
// same text yields no call.
func TestDeclaredFamily(t *testing.T) {
	jsonFam := Family{Name: "acme", Start: "<<call>>", End: "<</call>>", Args: "json"}
	pyFam := Family{Name: "acme_py", Start: "[[run]]", End: "[[/run]]", Args: "pythonic"}
	cases := []struct {
		name, text string
		fam        Family
		want       []wantCall
		content    string
	}{
		{"json object", "On it.\n<<call>>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}<</call>>", jsonFam,
			[]wantCall{{"get_time", `{"city":"Oslo"}`}}, "On it."},
		{"json list", "<<call>>[{\"name\": \"add\", \"arguments\": {\"a\": 1}}, {\"name\": \"toggle\", \"arguments\": {\"on\": false}}]<</call>>", jsonFam,
			[]wantCall{{"add", `{"a":1}`}, {"toggle", `{"on":false}`}}, ""},
		{"pythonic list", "[[run]][add(a=2, b=1.5), get_time(city='Oslo')][[/run]] Sent.", pyFam,
			[]wantCall{{"add", `{"a":2,"b":1.5}`}, {"get_time", `{"city":"Oslo"}`}}, "Sent."},
		{"pythonic one call", "[[run]]get_time(city=\"Oslo\")[[/run]]", pyFam, []wantCall{{"get_time", `{"city":"Oslo"}`}}, ""},
		{"quoted is a mention", "Writing \"<<call>>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}<</call>>\" asks.", jsonFam, nil, ""},
		{"not offered", "<<call>>{\"name\": \"launch\", \"arguments\": {}}<</call>>", jsonFam, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if res := Extract(tc.text, testTools(), nil); tc.want != nil && len(res.Calls) != 0 {
				t.Fatalf("undeclared: got %s %+v, want no call", res.Envelope, res.Calls)
			}
			res := Extract(tc.text, testTools(), &Options{Families: []Family{tc.fam}})
			var got []wantCall
			for _, c := range res.Calls {
				got = append(got, wantCall{c.Name, c.Arguments})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("calls = %v, want %v", got, tc.want)
			}
			wantEnv, wantContent := tc.fam.Name, tc.content
			if tc.want == nil {
				wantEnv, wantContent = "", tc.text
			}
			if res.Envelope != wantEnv || res.Content != wantContent {
				t.Errorf("envelope %q content %q, want %q %q", res.Envelope, res.Content, wantEnv, wantContent)
			}
		})
	}
}

// TestFamilyCheck: a bad declaration is refused, naming each bad field, and
// Extract skips it.
func TestFamilyCheck(t *testing.T) {
	err := Family{Args: "yaml"}.Check()
	if err == nil {
		t.Fatal("Check() = nil for an empty declaration")
	}
	for _, want := range []string{"name: empty", "start: empty", `args: "yaml"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %q, want it to name %q", err, want)
		}
	}
	if err := (Family{Name: "x", Start: "<x>", Args: "json"}).Check(); err != nil {
		t.Errorf("Check() of a good declaration = %v", err)
	}
	text := "<<call>>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}<</call>>"
	bad := Family{Name: "acme", Start: "<<call>>", End: "<</call>>", Args: "toml"}
	if res := Extract(text, testTools(), &Options{Families: []Family{bad}}); len(res.Calls) != 0 {
		t.Errorf("a declaration that fails Check was used: %s %+v", res.Envelope, res.Calls)
	}
}
