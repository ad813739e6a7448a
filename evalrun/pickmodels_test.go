package evalrun

import (
	"testing"

	"github.com/tapeloop/tapeloop/report"
)

// TestPickModels: the models compare chooses from the flags and the two
// reports. One flag alone names the model on both sides.
func TestPickModels(t *testing.T) {
	models := func(names ...string) *report.Eval {
		r := &report.Eval{}
		for _, n := range names {
			r.Models = append(r.Models, report.EvalModel{Name: n})
		}
		return r
	}
	for _, tc := range []struct {
		name         string
		a, b         *report.Eval
		flagA, flagB string
		wantA, wantB string
		wantErr      string
	}{
		{name: "--model-b alone names A's model too", a: models("m", "n"), b: models("m", "n"), flagB: "n", wantA: "n", wantB: "n"},
		{name: "--model-a alone names B's model too", a: models("m", "n"), b: models("m", "n"), flagA: "m", wantA: "m", wantB: "m"},
		{name: "both named", a: models("m", "n"), b: models("m", "n"), flagA: "m", flagB: "n", wantA: "m", wantB: "n"},
		{name: "each report's only model", a: models("m"), b: models("n"), wantA: "m", wantB: "n"},
		{name: "the one shared model", a: models("m", "n"), b: models("n", "o"), wantA: "n", wantB: "n"},
		{name: "two shared models", a: models("m", "n"), b: models("m", "n"), wantErr: "the reports share 2 models [m n]: name the ones to compare with --model-a and --model-b"},
		{name: "--model-b alone missing from A", a: models("m"), b: models("n"), flagB: "n", wantErr: "A has no model n"},
		{name: "--model-b missing from B", a: models("m"), b: models("n"), flagA: "m", flagB: "m", wantErr: "B has no model m"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ma, mb, err := pickModels(tc.a, tc.b, tc.flagA, tc.flagB)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("pickModels = %q, %q, %v; want error %q", ma, mb, err, tc.wantErr)
				}
				return
			}
			if err != nil || ma != tc.wantA || mb != tc.wantB {
				t.Errorf("pickModels = %q, %q, %v; want %q, %q", ma, mb, err, tc.wantA, tc.wantB)
			}
		})
	}
}
