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
	xmlFam := Family{Name: "acme_xml", Start: "<<act>>", End: "<</act>>", Args: "xml"}
	openXML := Family{Name: "acme_open", Start: "%%", Args: "xml"}
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
		{"xml name then elements", "Adding.\n<<act>>add\n<a>12</a>\n<b>0.75</b>\n<</act>>", xmlFam, []wantCall{{"add", `{"a":12,"b":0.75}`}}, "Adding."},
		{"xml name attribute", "<<act>><invoke name=\"toggle\"><parameter name=\"on\">true</parameter></invoke><</act>>", xmlFam, []wantCall{{"toggle", `{"on":true}`}}, ""},
		{"xml name after equals", "<<act>><call=get_time><arg=city>\nOslo\n</arg></call><</act>>", xmlFam, []wantCall{{"get_time", `{"city":"Oslo"}`}}, ""},
		{"xml key value tags", "<<act>>get_time<arg_key>city</arg_key><arg_value><![CDATA[a <b> c]]></arg_value><</act>>", xmlFam, []wantCall{{"get_time", `{"city":"a <b> c"}`}}, ""},
		{"xml no arguments", "<<act>>note<</act>>", xmlFam, []wantCall{{"note", `{}`}}, ""},
		{"xml text between values", "<<act>>add<a>1</a> and <b>2</b><</act>>", xmlFam, nil, ""},
		{"xml key twice", "<<act>>add<a>1</a><a>2</a><</act>>", xmlFam, nil, ""},
		{"xml value cut off", "<<act>>get_time<city>Os", xmlFam, nil, ""},
		{"xml wrapper not closed", "<<act>><invoke name=\"add\"><a>1</a><</act>>", xmlFam, nil, ""},
		{"xml wrapper over lines", "<<act>>\n<invoke name=\"add\">\n<a>5</a>\n</invoke>\n<</act>>", xmlFam, []wantCall{{"add", `{"a":5}`}}, ""},
		{"xml without an end token, prose on the next line", "%%add <a>2</a> <b>3</b>\nAdding them.", openXML, []wantCall{{"add", `{"a":2,"b":3}`}}, "Adding them."},
		{"xml without an end token, wrapper then prose", "%%<invoke name=\"toggle\"><on>false</on></invoke>\nDone.", openXML, []wantCall{{"toggle", `{"on":false}`}}, "Done."},
		{"xml without an end token, name alone", "%%note\nNothing to pass.", openXML, []wantCall{{"note", `{}`}}, "Nothing to pass."},
		{"xml without an end token, prose on its line", "%%add <a>2</a> and more", openXML, nil, ""},
		{"xml in a code block", "```\n<<act>>add<a>1</a><</act>>\n```", xmlFam, nil, ""},
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
	for _, want := range []string{"name: empty", "start: empty", `args: "yaml", want one of json, xml, pythonic`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check() = %q, want it to name %q", err, want)
		}
	}
	if err := (Family{Name: "hermes", Start: "<x>", Args: "json"}).Check(); err == nil || !strings.Contains(err.Error(), `name: "hermes" is a known envelope`) {
		t.Errorf("Check() of a declaration named like a known envelope = %v", err)
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

// TestFormatsRestrictEnvelopes: with Options.Formats set, a call in a format
// it does not list is text, known or declared.
func TestFormatsRestrictEnvelopes(t *testing.T) {
	hermes := "<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}</tool_call>"
	declared := "<<call>>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Oslo\"}}<</call>>"
	acme := Family{Name: "acme", Start: "<<call>>", End: "<</call>>", Args: "json"}
	cases := []struct {
		name, text string
		formats    []string
		want       string // envelope; "" for no call
	}{
		{"listed known", hermes, []string{"hermes"}, "hermes"},
		{"unlisted known", hermes, []string{"glm", "acme"}, ""},
		{"listed declared", declared, []string{"acme"}, "acme"},
		{"unlisted declared", declared, []string{"hermes"}, ""},
		{"empty means all", hermes, nil, "hermes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := Extract(tc.text, testTools(), &Options{Families: []Family{acme}, Formats: tc.formats})
			if res.Envelope != tc.want || (tc.want == "") != (len(res.Calls) == 0) {
				t.Errorf("Extract = %q %+v, want envelope %q", res.Envelope, res.Calls, tc.want)
			}
			if tc.want == "" && res.Content != tc.text {
				t.Errorf("content = %q, want the text unchanged", res.Content)
			}
		})
	}
}

// TestEnvelopesListsEveryEnvelope: Envelopes names each envelope once, and
// the hint words lead to envelopes it names.
func TestEnvelopesListsEveryEnvelope(t *testing.T) {
	names := Envelopes()
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] {
			t.Errorf("Envelopes() names %q twice", n)
		}
		seen[n] = true
	}
	for _, h := range familyHints {
		if !seen[h.envelope] {
			t.Errorf("hint %q leads to %q, which Envelopes() does not name", h.word, h.envelope)
		}
	}
	if len(names) != len(envelopeOrder) {
		t.Errorf("Envelopes() has %d names, want %d", len(names), len(envelopeOrder))
	}
}
