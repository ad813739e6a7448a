package eval

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tapeloop/tapeloop/report"
)

// WriteText writes the report for people: one row per scenario with each
// model's passed/scored trials and class (side by side for several models,
// marking rows where the classes differ), the failed expectations with how
// often, why error trials failed (the first line of each distinct cause,
// with a count), one row per model with its aggregates, and for two models
// the comparison.
func WriteText(w io.Writer, r *report.Eval) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	models := modelNames(r)
	fmt.Fprintf(tw, "scenario\t%s\n", strings.Join(models, "\t"))
	byName := map[string]map[string]*report.EvalScenario{}
	var names []string
	for i := range r.Scenarios {
		s := &r.Scenarios[i]
		if byName[s.Name] == nil {
			byName[s.Name] = map[string]*report.EvalScenario{}
			names = append(names, s.Name)
		}
		byName[s.Name][s.Model] = s
	}
	for _, name := range names {
		cells := make([]string, len(models))
		classes := map[string]bool{}
		for i, m := range models {
			s := byName[name][m]
			if s == nil {
				cells[i] = "-"
				continue
			}
			cells[i] = cell(s)
			classes[s.Class] = true
		}
		row := report.Printable(name) + "\t" + strings.Join(cells, "\t")
		if len(models) > 1 && len(classes) > 1 {
			row += "\tdiffers"
		}
		fmt.Fprintln(tw, row)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, name := range names {
		for _, m := range models {
			s := byName[name][m]
			if s == nil || len(s.Failures) == 0 {
				continue
			}
			var parts []string
			for _, k := range slices.Sorted(maps.Keys(s.Failures)) {
				parts = append(parts, fmt.Sprintf("%s %d/%d", k, s.Failures[k], s.Trials))
			}
			fmt.Fprintf(w, "  %s (%s) failed: %s\n", report.Printable(name), m, report.Printable(strings.Join(parts, ", ")))
		}
	}
	for _, name := range names {
		for _, m := range models {
			if s := byName[name][m]; s != nil {
				if agent, own := askedModels(s); agent != "" {
					fmt.Fprintf(w, "  %s (%s): the agent asked for %s; its requests went to %s with the model alone replaced\n", report.Printable(name), m, report.Printable(agent), m)
				} else if own != "" {
					fmt.Fprintf(w, "  %s (%s): the scenario's own model is %s; %s answered in its place\n", report.Printable(name), m, report.Printable(own), m)
				}
			}
		}
	}
	writeCauses(w, r)
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tpassed\tpass@1\tpass^k\terrors\ttokens in/out/cached\tcost\tlatency p50/p95\twall")
	for _, m := range r.Models {
		k := len(m.PassHatK)
		cost := "-"
		if m.Cost != nil {
			cost = fmt.Sprintf("$%.4f", *m.Cost)
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%.2f\tpass^%d %.2f\t%d\t%d/%d/%d\t%s\t%.0f/%.0f ms\t%.1fs\n",
			m.Name, m.Passed, m.Trials, m.PassAtK[1], k, m.PassHatK[k], m.Errors,
			m.Tokens.Input, m.Tokens.Output, m.Tokens.Cached, cost, m.LatencyMS.P50, m.LatencyMS.P95, m.WallMS/1000)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if c := r.Summary.Comparison; c != nil {
		fmt.Fprintln(w, comparisonLine(c, c.A, c.B))
	}
	s := r.Summary
	fmt.Fprintf(w, "%d passed, %d failed, %d errors (left out of pass@k)", s.Passed, s.Failed, s.Errors)
	if s.NotRun > 0 {
		fmt.Fprintf(w, ", %d not run", s.NotRun)
	}
	switch s.Stopped {
	case report.StoppedMaxCost:
		fmt.Fprintf(w, " (stopped: --max-cost $%g reached)", *s.MaxCost)
	case report.StoppedInterrupted:
		fmt.Fprint(w, " (interrupted)")
	}
	_, err := fmt.Fprintln(w)
	return err
}

func cell(s *report.EvalScenario) string {
	c := fmt.Sprintf("%d/%d %s", s.Passed, s.Trials, s.Class)
	if s.Errors > 0 {
		c += fmt.Sprintf(" (+%d err)", s.Errors)
	}
	return c
}

func modelNames(r *report.Eval) []string {
	names := make([]string, len(r.Models))
	for i, m := range r.Models {
		names[i] = m.Name
	}
	return names
}

// writeCauses writes why the error trials could not be scored: per model,
// the first line of each distinct error, how many trials it ended, in the
// order first met.
func writeCauses(w io.Writer, r *report.Eval) {
	type cause struct {
		model, text string
	}
	counts := map[cause]int{}
	var order []cause
	for _, s := range r.Scenarios {
		for _, t := range s.TrialsDetail {
			if t.Status != report.StatusError {
				continue
			}
			text, _, _ := strings.Cut(t.Error, "\n")
			if text == "" {
				text = "no error was recorded"
			}
			c := cause{s.Model, text}
			if counts[c] == 0 {
				order = append(order, c)
			}
			counts[c]++
		}
	}
	for _, c := range order {
		fmt.Fprintf(w, "  error trials (%s): %d× %s\n", c.model, counts[c], report.Printable(c.text))
	}
}

// askedModels returns the bridged agent's own model when a trial of s sent
// its requests to another (EvalTrial.AgentModel), and the native
// scenario's own when another answered it (EvalTrial.ScenarioModel);
// each empty otherwise.
func askedModels(s *report.EvalScenario) (agent, own string) {
	for _, t := range s.TrialsDetail {
		agent, own = cmp.Or(agent, t.AgentModel), cmp.Or(own, t.ScenarioModel)
	}
	return agent, own
}
