package evalrun

import (
	"context"
	"fmt"

	"github.com/tapeloop/tapeloop/eval"
	"github.com/tapeloop/tapeloop/report"
)

func init() {
	register(&command{name: "merge", summary: "combine the JSON results of shards into one", run: runMerge})
}

const mergeDoc = `Combines the JSON results of the shards of one run (replay --shard i/n --json FILE,
or eval --shard i/n --json FILE) into the result of the whole suite,
recomputing every count and statistic from the per-scenario and per-trial
records. Refuses a missing shard, a shard given twice, shards of
different totals and a scenario in two shards. Exit 1 when the merged result
has a failure.`

func runMerge(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "merge", "evalrun merge A.json B.json ... --json ALL.json [--html ALL.html] [--junit ALL.xml]", mergeDoc)
	out := addOutputFlags(fs, false, report.ReplayFormat+" or "+report.EvalFormat+", as the shards")
	args, code, ok := parseFlags(e, fs, args)
	if !ok {
		return code
	}
	if code := out.check(e, "merge"); code != exitOK {
		return code
	}
	if len(args) == 0 || !out.any() {
		fmt.Fprintln(e.stderr, "evalrun merge: want shard results and at least one of --json, --html, --junit")
		fs.Usage()
		return exitUsage
	}
	first, err := report.Read(args[0])
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
		return exitUsage
	}
	if _, ok := first.(*report.Eval); ok {
		return mergeEval(e, args, out)
	}
	parts := make([]*report.Replay, len(args))
	for i, path := range args {
		r, err := report.Read(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
			return exitUsage
		}
		rr, ok := r.(*report.Replay)
		if !ok {
			fmt.Fprintf(e.stderr, "evalrun merge: %s is a replay result and %s an eval report: merge results of one kind\n", args[0], path)
			return exitUsage
		}
		parts[i] = rr
	}
	merged, err := report.MergeReplay(args, parts)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
		return exitUsage
	}
	if code := out.write(e, "merge", merged); code != exitOK {
		return code
	}
	s := merged.Summary
	fmt.Fprintf(out.textOut(e), "merged %s: %d passed, %d failed\n", shardsCount(len(parts)), s.Passed, s.Failed)
	if s.Errors > 0 {
		fmt.Fprintf(e.stderr, "evalrun merge: %d trials errored (a failed model call); their scores say nothing about the model (exit %d)\n", s.Errors, exitErrored)
		return exitErrored
	}
	if s.Failed > 0 {
		return exitFailed
	}
	return exitOK
}

// mergeEval merges the eval reports of shards.
func mergeEval(e *env, args []string, out *outputFlags) int {
	parts := make([]*report.Eval, len(args))
	for i, path := range args {
		r, err := report.Read(path)
		if err != nil {
			fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
			return exitUsage
		}
		ev, ok := r.(*report.Eval)
		if !ok {
			fmt.Fprintf(e.stderr, "evalrun merge: %s is a replay result and %s an eval report: merge results of one kind\n", path, args[0])
			return exitUsage
		}
		parts[i] = ev
	}
	merged, err := eval.Merge(args, parts)
	if err != nil {
		fmt.Fprintf(e.stderr, "evalrun merge: %v\n", err)
		return exitUsage
	}
	if code := out.write(e, "merge", merged); code != exitOK {
		return code
	}
	s := merged.Summary
	fmt.Fprintf(out.textOut(e), "merged %s: %d trials passed, %d failed, %d errors\n", shardsCount(len(parts)), s.Passed, s.Failed, s.Errors)
	if !s.OK {
		return exitFailed
	}
	return exitOK
}

// shardsCount is "1 shard" or "N shards".
func shardsCount(n int) string {
	if n == 1 {
		return "1 shard"
	}
	return fmt.Sprintf("%d shards", n)
}
