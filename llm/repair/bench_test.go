package repair

import "testing"

// BenchmarkRepairCorpus repairs every input of both corpora; throughput counts
// input bytes.
func BenchmarkRepairCorpus(b *testing.B) {
	var inputs []string
	size := 0
	for name := range corpusFloors {
		for _, c := range loadCorpus(b, name) {
			inputs = append(inputs, c.Input)
			size += len(c.Input)
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for _, in := range inputs {
			_, _, _ = Repair(in)
		}
	}
}

// BenchmarkRepairBroken repairs one typical broken tool call.
func BenchmarkRepairBroken(b *testing.B) {
	in := "Sure! Here you go:\n```json\n{path: 'src/main.go', \"content\": \"package main\n\nfunc main() {}\n\", \"overwrite\": True,\n```"
	if _, fixes, err := Repair(in); err != nil || len(fixes) == 0 {
		b.Fatalf("Repair(%q) = %q, %v; want a repair", in, fixes, err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = Repair(in)
	}
}

// BenchmarkRepairValid measures the strict fast path.
func BenchmarkRepairValid(b *testing.B) {
	in := `{"path":"src/main.go","content":"package main\n\nfunc main() {}\n","overwrite":true,"mode":420,"tags":["a","b"]}`
	if out, fixes, err := Repair(in); err != nil || out != in || fixes != nil {
		b.Fatalf("Repair(%q) = %q, %q, %v; want it unchanged", in, out, fixes, err)
	}
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		_, _, _ = Repair(in)
	}
}
