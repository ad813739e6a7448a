package report

// Verdict is a judge model's verdict on one expect.judge item (a
// model-graded rubric), as the reports show it beside the text it judged.
type Verdict struct {
	// Index is the item's place in expect.judge, from 0.
	Index int `json:"index"`
	// Rubric is the item's rubric; On is what was judged, "final" or
	// "transcript".
	Rubric string `json:"rubric"`
	On     string `json:"on"`
	// Model is the judge model, "PROVIDER/MODEL"; empty when there is no
	// verdict.
	Model string `json:"model,omitempty"`
	// Judged is the text that was judged, redacted; empty when there is no
	// verdict.
	Judged string `json:"judged,omitempty"`
	// Score (0..1), JudgePass and Reason are the judge's answer.
	Score     float64 `json:"score"`
	JudgePass bool    `json:"judge_pass"`
	Reason    string  `json:"reason,omitempty"`
	// Threshold is the item's threshold; nil means the judge's own pass
	// decides.
	Threshold *float64 `json:"threshold,omitempty"`
	// Passed reports whether the item held: score >= Threshold when a
	// threshold is given, else JudgePass; false when there is no verdict.
	Passed bool `json:"passed"`
	// Problem says why there is no verdict (a replay's judged text changed,
	// none was recorded, the judge's answer was not a verdict); empty when
	// there is one.
	Problem string `json:"problem,omitempty"`
}
