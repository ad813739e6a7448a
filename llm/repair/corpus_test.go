package repair

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// corpusDir returns the directory of the shared JSON-repair corpora: under
// $TAPELOOP_CORPORA when set, else ../shared/corpora next to the repository.
// Tests that read it skip, saying so, when it is absent.
func corpusDir() string {
	if d := os.Getenv("TAPELOOP_CORPORA"); d != "" {
		return filepath.Join(d, "json-repair")
	}
	return "../../../shared/corpora/json-repair"
}

// corpusFloors is the minimum semantic pass rate per corpus: a regression guard
// set just under what the cascade achieves.
var corpusFloors = map[string]float64{
	"josdejong-jsonrepair.jsonl": 0.995,
	"kaptinlin-jsonrepair.jsonl": 0.98,
}

// corpusCase is one line of a corpus.
type corpusCase struct {
	Input    string  `json:"input"`
	Expected *string `json:"expected"`
	Compare  string  `json:"compare"`
	Source   string  `json:"source"`
}

// loadCorpus reads a corpus file, skipping the test when it is absent.
func loadCorpus(tb testing.TB, name string) []corpusCase {
	tb.Helper()
	path := filepath.Join(corpusDir(), name)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("SKIP: corpus %s not found; the shared corpora are not on this machine (set TAPELOOP_CORPORA to the corpora directory to measure against them)", path)
	}
	if err != nil {
		tb.Fatal(err)
	}
	var cases []corpusCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			tb.Fatalf("%s:%d: %v", name, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return cases
}

// decode decodes JSON text keeping numbers as their text.
func decode(s string) (any, error) {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// semanticPass reports whether the repair of c matches its expectation.
func semanticPass(c corpusCase) (bool, string) {
	out, _, err := Repair(c.Input)
	if c.Expected == nil || c.Compare == "error" {
		if err != nil {
			return true, ""
		}
		return false, "want an error, got " + out
	}
	if err != nil {
		return false, err.Error()
	}
	got, err := decode(out)
	if err != nil {
		return false, "output does not parse: " + out
	}
	want, err := decode(*c.Expected)
	if err != nil {
		return false, "expected does not parse"
	}
	if !reflect.DeepEqual(got, want) {
		return false, "got " + out + ", want " + *c.Expected
	}
	return true, ""
}

func TestCorpora(t *testing.T) {
	for name, floor := range corpusFloors {
		t.Run(name, func(t *testing.T) {
			cases := loadCorpus(t, name)
			passed := 0
			for i, c := range cases {
				ok, why := semanticPass(c)
				if ok {
					passed++
					continue
				}
				t.Logf("line %d (%s): input %q: %s", i+1, c.Source, c.Input, why)
			}
			rate := float64(passed) / float64(len(cases))
			t.Logf("%s: %d/%d passed (%.1f%%)", name, passed, len(cases), 100*rate)
			if rate < floor {
				t.Errorf("%s: pass rate %.1f%% is below the floor %.1f%%", name, 100*rate, 100*floor)
			}
		})
	}
}
