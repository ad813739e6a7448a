package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestReadCompare(t *testing.T) {
	c := &Compare{Format: CompareFormat, Scenarios: []CompareScenario{{Name: "s", Change: ChangeAdded, B: &CompareCounts{Passed: 1, Trials: 3, PassRate: 1.0 / 3}, P: 1, PAdjusted: 1}}}
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"pass_rate": 0.333333`) || !strings.Contains(buf.String(), `"a": null`) {
		t.Errorf("written:\n%s", buf.String())
	}
	got, err := ReadCompare(&buf)
	if err != nil || len(got.Scenarios) != 1 || got.Scenarios[0].A != nil || got.Scenarios[0].B.Trials != 3 {
		t.Fatalf("read back: %+v, %v", got, err)
	}
	for _, bad := range []string{`{"format": "tapeloop-eval/v1"}`, `{"format": `} {
		if _, err := ReadCompare(strings.NewReader(bad)); !errors.Is(err, ErrCompareFormat) {
			t.Errorf("ReadCompare(%s): %v; want ErrCompareFormat", bad, err)
		}
	}
}
