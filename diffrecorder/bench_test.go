package diffrecorder_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/tools"
)

// BenchmarkEndTurn measures one turn that edits a 200-line file in a few
// places: a replaced line, an inserted line and a deleted line.
func BenchmarkEndTurn(b *testing.B) {
	var sb strings.Builder
	for i := range 200 {
		fmt.Fprintf(&sb, "\tfield%d := compute(%d) // line %d\n", i, i*7, i)
	}
	before := sb.String()
	after := strings.Replace(before, "compute(70)", "computeFast(70)", 1)
	after = strings.Replace(after, "// line 120\n", "// line 120\n\tinserted()\n", 1)
	after = strings.Replace(after, "\tfield180 := compute(1260) // line 180\n", "", 1)
	versions := [2][]byte{[]byte(after), []byte(before)}

	w, rec := newRecorder(b, map[string]string{"main.go": before})
	effects := []tools.Effect{tools.FileChange(tools.OpModify, "main.go", 0)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		w.WriteFile("main.go", versions[i%2])
		rec.Record(effects)
		d, err := rec.EndTurn()
		if err != nil || len(d.Files) != 1 {
			b.Fatalf("EndTurn = %v, %v", d, err)
		}
		i++
	}
}
