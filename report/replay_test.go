package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReplayJSONRoundTrip(t *testing.T) {
	r := suiteReplay(t, &Shard{Index: 1, Total: 1})
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<script>window.pwned=1;`) {
		t.Error("the JSON escapes HTML characters; it should keep the text readable")
	}
	back, err := DecodeReplay("r.json", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, r) {
		t.Errorf("the decoded result differs from the written one")
	}
}

func TestDecodeReplayErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"syntax", "{\n  \"format\": \"tapeloop-replay/v1\",\n  \"scenarios\": [}\n", "not a tapeloop result: r.json:3:17: invalid character '}' looking for beginning of value"},
		{"type", "{\"format\": \"tapeloop-replay/v1\",\n\"summary\": {\"passed\": \"two\"}}", "not a tapeloop result: r.json:2:28: summary.passed: a JSON string where int belongs"},
		{"format", `{"format": "tapeloop-eval/v1"}`, `not a tapeloop result: r.json: format "tapeloop-eval/v1", want "tapeloop-replay/v1"`},
		{"no format", `{"passed": 1}`, `not a tapeloop result: r.json: format "", want "tapeloop-replay/v1"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeReplay("r.json", []byte(c.in))
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestSortScenariosByPathThenName: the path decides first; the name only
// between scenarios of one path.
func TestSortScenariosByPathThenName(t *testing.T) {
	s := []ScenarioResult{{Name: "b", Path: "x.yaml"}, {Name: "z", Path: "a.yaml"}, {Name: "a", Path: "x.yaml"}}
	SortScenarios(s)
	var got []string
	for _, sc := range s {
		got = append(got, sc.Path+":"+sc.Name)
	}
	if want := []string{"a.yaml:z", "x.yaml:a", "x.yaml:b"}; !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
