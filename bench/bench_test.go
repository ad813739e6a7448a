package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/bench/benchrow"
	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/redact"
	"github.com/tapeloop/tapeloop/scenario"
)

// table collects the rows TestMain prints.
var table benchrow.Table

// record keeps the figures of b's final run (the one go test reports) for
// the table TestMain prints.
func record(b *testing.B, order int, name string, before benchrow.Usage) {
	b.Helper()
	table.Record(b, order, name, turns, before)
}

// BenchmarkFloor is the reference workload done by the least code that could
// do it: the tape as Go values, the workspace a map, the golden built by
// hand and compared as a string.
func BenchmarkFloor(b *testing.B) {
	type call struct{ id, name, path, content string }
	type turn struct {
		text  string
		calls []call
	}
	var tape []turn
	for i := 1; i <= 10; i++ {
		tape = append(tape, turn{fmt.Sprintf("Turn %d: reading and appending.", i), []call{
			{"r" + fmt.Sprint(i), "read_file", "log.txt", ""},
			{"w" + fmt.Sprint(i), "append_file", "log.txt", fmt.Sprintf("line %d\n", i)},
		}})
	}
	tape = append(tape, turn{text: "Done."})
	run := func() string {
		ws := map[string][]byte{"log.txt": []byte("start\n")}
		var out strings.Builder
		var msgs []string
		for i, t := range tape {
			msgs = append(msgs, t.text)
			fmt.Fprintf(&out, "turn %d: %s\n", i+1, t.text)
			for _, c := range t.calls {
				var result string
				switch c.name {
				case "read_file":
					result = string(ws[c.path])
				case "append_file":
					ws[c.path] = append(ws[c.path], c.content...)
					result = "appended"
				}
				msgs = append(msgs, result)
				fmt.Fprintf(&out, "  %s %s: %s\n", c.id, c.name, result)
			}
		}
		out.WriteString(string(ws["log.txt"]))
		return out.String()
	}
	want := run()
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		if run() != want {
			b.Fatal("the floor's golden changed")
		}
	}
	record(b, 0, "hand-written in-memory loop (floor)", before)
}

// bareTape is the reference scenario's tape as the bare YAML row reads it.
type bareTape struct {
	Setup struct {
		Workspace struct {
			Files map[string]string `yaml:"files"`
		} `yaml:"workspace"`
	} `yaml:"setup"`
	Tape []struct {
		Response struct {
			Content   string `yaml:"content"`
			ToolCalls []struct {
				ID        string `yaml:"id"`
				Name      string `yaml:"name"`
				Arguments string `yaml:"arguments"`
			} `yaml:"tool_calls"`
		} `yaml:"response"`
	} `yaml:"tape"`
}

type bareCall struct {
	ID        string `yaml:"id"`
	Name      string `yaml:"name"`
	Arguments string `yaml:"arguments"`
	Result    string `yaml:"result"`
}

type bareTurn struct {
	Turn    int        `yaml:"turn"`
	Content string     `yaml:"content"`
	Calls   []bareCall `yaml:"calls,omitempty"`
}

type bareGolden struct {
	Turns     []bareTurn        `yaml:"turns"`
	Workspace map[string]string `yaml:"workspace"`
}

// bareRun reads the scenario file, parses its tape with yaml.Unmarshal, runs
// it against an in-memory workspace (JSON arguments decoded) and marshals
// the result with yaml.Marshal.
func bareRun(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t bareTape
	if err := yaml.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	ws := map[string]string{}
	for k, v := range t.Setup.Workspace.Files {
		ws[k] = v
	}
	var g bareGolden
	for i, e := range t.Tape {
		turn := bareTurn{Turn: i + 1, Content: e.Response.Content}
		for _, c := range e.Response.ToolCalls {
			var args struct{ Path, Content string }
			if err := json.Unmarshal([]byte(c.Arguments), &args); err != nil {
				return nil, err
			}
			var result string
			switch c.Name {
			case "read_file":
				result = ws[args.Path]
			case "append_file":
				ws[args.Path] += args.Content
				result = "appended"
			}
			turn.Calls = append(turn.Calls, bareCall{c.ID, c.Name, c.Arguments, result})
		}
		g.Turns = append(g.Turns, turn)
	}
	g.Workspace = ws
	return yaml.Marshal(&g)
}

// BenchmarkBareYAML is the reference workload with a YAML tape parsed each run
// and a yaml.Marshal golden compared as bytes with the golden file (read
// each run).
func BenchmarkBareYAML(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ten-turns.yaml")
	if err := os.WriteFile(path, []byte(scenarioText()), 0o644); err != nil {
		b.Fatal(err)
	}
	golden := path + ".bare.golden"
	want, err := bareRun(path)
	if err != nil || bytes.Count(want, []byte("turn:")) != turns {
		b.Fatalf("bare run: %v\n%s", err, want)
	}
	if err := os.WriteFile(golden, want, 0o644); err != nil {
		b.Fatal(err)
	}
	before := benchrow.Read()
	b.ResetTimer()
	for b.Loop() {
		got, err := bareRun(path)
		if err != nil {
			b.Fatal(err)
		}
		w, err := os.ReadFile(golden)
		if err != nil || !bytes.Equal(got, w) {
			b.Fatal("the bare golden changed")
		}
	}
	record(b, 1, "YAML tape parsed each run + yaml.Marshal golden, bytes compared", before)
}

// BenchmarkVerify is harness.Verify on the reference scenario: load, run,
// diffs, golden encode and compare, expectations.
func BenchmarkVerify(b *testing.B) { table.Native(b, 2) }

// replayOnce loads and replays the scenario at path once and returns the
// scenario, its outcome and its golden.
func replayOnce(b *testing.B, path string) (*scenario.Scenario, *harness.Outcome, []byte) {
	b.Helper()
	s, err := scenario.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	o, err := harness.Run(context.Background(), s, nil)
	if err != nil {
		b.Fatal(err)
	}
	golden, err := o.Golden(redact.Default())
	if err != nil {
		b.Fatal(err)
	}
	return s, o, golden
}

// BenchmarkPhase measures harness.Verify's phases one at a time.
func BenchmarkPhase(b *testing.B) {
	path := writeScenario(b)
	ctx := context.Background()
	s, o, golden := replayOnce(b, path)
	goldenPath := scenario.GoldenPath(path)
	b.Run("load", func(b *testing.B) {
		before := benchrow.Read()
		b.ResetTimer()
		for b.Loop() {
			if _, err := scenario.Load(path); err != nil {
				b.Fatal(err)
			}
		}
		record(b, 3, "phase: load", before)
	})
	b.Run("run", func(b *testing.B) {
		before := benchrow.Read()
		b.ResetTimer()
		for b.Loop() {
			if _, err := harness.Run(ctx, s, nil); err != nil {
				b.Fatal(err)
			}
		}
		record(b, 4, "phase: run (loop, tools, diffs)", before)
	})
	b.Run("golden", func(b *testing.B) {
		before := benchrow.Read()
		b.ResetTimer()
		for b.Loop() {
			if _, err := o.Golden(redact.Default()); err != nil {
				b.Fatal(err)
			}
		}
		record(b, 5, "phase: golden encode", before)
	})
	b.Run("compare", func(b *testing.B) {
		before := benchrow.Read()
		b.ResetTimer()
		for b.Loop() {
			if err := harness.CompareGolden(goldenPath, golden); err != nil {
				b.Fatal(err)
			}
		}
		record(b, 6, "phase: compare (read golden file)", before)
	})
}

// TestMain prints the table of the benchmarks that ran.
func TestMain(m *testing.M) {
	code := m.Run()
	printTable()
	os.Exit(code)
}

func printTable() {
	med, all := table.Medians()
	if len(all) == 0 {
		return
	}
	table.Print(os.Stdout)
	floor, fok := med["hand-written in-memory loop (floor)"]
	bare, bok := med["YAML tape parsed each run + yaml.Marshal golden, bytes compared"]
	verify, vok := med[benchrow.NativeRow]
	run, rok := med["phase: run (loop, tools, diffs)"]
	if bok && vok {
		// CPU time when known, as the bridge targets: wall time on a loaded
		// machine measures the load as much as the code.
		unit := "CPU time"
		if bare.CPU == 0 || verify.CPU == 0 {
			unit = "wall time"
		}
		fmt.Printf("harness vs bare YAML: %.2f× in %s, %.2f× in wall time (target ≥ 1.0×: bare µs/turn ÷ harness µs/turn)\n",
			bare.PerTurn()/verify.PerTurn(), unit, bare.Wall/verify.Wall)
	}
	if fok && rok {
		fmt.Printf("run phase vs floor: %.1f× (target ≤ 8×)\n", run.Wall/floor.Wall)
	}
	if g, ok := med["phase: golden encode"]; ok {
		fmt.Printf("golden encode: %.1f µs/turn (target ≤ 15)\n", g.Wall)
	}
	benchrow.PrintBridgeTargets(os.Stdout, med)
	var formats []benchrow.FormatRows
	for _, f := range rawFormats[1:] {
		formats = append(formats, f.rows)
	}
	benchrow.PrintFormatTargets(os.Stdout, med, rawFormats[0].rows, formats)
}
