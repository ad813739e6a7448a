package evalrun

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "merge", summary: "combine the JSON results of shards into one", run: runMerge})
}

const mergeDoc = `Combines the JSON results of the shards of one run (replay --shard i/n --json)
into the result of the whole suite, recomputing every count from the
per-scenario records. Refuses a missing shard, a shard given twice, shards of
different totals and a scenario in two shards. Exit 1 when the merged result
has a failure.`

func runMerge(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "merge", "evalrun merge A.json B.json ... --json ALL.json [--html ALL.html] [--junit ALL.xml]", mergeDoc)
	jsonPath := fs.String("json", "", "write the merged result to this file")
	out := addOutputFlags(fs, false)
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if len(args) == 0 || (*jsonPath == "" && out.html == "" && out.junit == "") {
		fmt.Fprintln(e.stderr, "evalrun merge: want shard results and at least one of --json, --html, --junit")
		fs.Usage()
		return exitUsage
	}
	parts := make([]*report.Replay, len(args))
	for i, path := range args {
		r, err := report.ReadReplay(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
			return exitUsage
		}
		parts[i] = r
	}
	merged, err := report.MergeReplay(args, parts)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
		return exitUsage
	}
	if *jsonPath != "" {
		if err := atomicfile.Write(*jsonPath, merged.WriteJSON); err != nil {
			fmt.Fprintf(e.stderr, "evalrun merge: --json: %v\n", err)
			return exitUsage
		}
	}
	if code := out.write(e, "merge", merged); code != exitOK {
		return code
	}
	s := merged.Summary
	fmt.Fprintf(e.stdout, "merged %d shards: %d passed, %d failed\n", len(parts), s.Passed, s.Failed)
	if s.Failed > 0 {
		return exitFailed
	}
	return exitOK
}
