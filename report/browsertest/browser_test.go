// Package browsertest_test opens tapeloop's HTML report in a headless
// Chromium (chromedp) and checks what a reader sees: that hostile text stays
// text, that filters and lazy rows work, that a large report stays usable.
// It is a module of its own so that chromedp never enters tapeloop's
// requirements:
//
//	cd report/browsertest && go test -race ./...
package browsertest_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/report"
	"github.com/tapeloop/tapeloop/report/fromharness"
)

// hostile is the model-controlled text of the fixture suite that must render
// as text, never as markup.
const hostile = `<script>window.pwned=1;document.title="pwned"</script><img src=x onerror="window.pwned=2">`

// suiteReplay is the replay result of report's fixture suite
// (report/testdata/suite.json, built from real verdicts by
// report/fromharness's TestSuiteFixture).
func suiteReplay(t testing.TB) *report.Replay {
	t.Helper()
	r, err := report.ReadReplay(filepath.Join("..", "testdata", "suite.json"))
	if err != nil {
		t.Fatal(err)
	}
	return report.NewReplay(r.Scenarios, nil)
}

// largeReplay returns a replay result of n scenarios made from the fixture
// suite's two, spread over folders and tags.
func largeReplay(t testing.TB, n int) *report.Replay {
	base := suiteReplay(t)
	var all []report.ScenarioResult
	for i := range n {
		s := base.Scenarios[i%2]
		s.Name = fmt.Sprintf("group%02d/%s-%04d", i%37, s.Name, i)
		s.Path = "scenarios/" + s.Name + ".yaml"
		s.Tags = append([]string{fmt.Sprintf("t%d", i%7)}, s.Tags...)
		all = append(all, s)
	}
	return report.NewReplay(all, nil)
}

// browserNames are the names a Chromium-based browser is installed under.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// browser starts a headless Chromium and returns a tab's context, skipping
// the test when none is installed (CI installs one: .ci/run).
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range browserNames {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("no Chromium found (looked for %s), and CI must run the browser test: .ci/run installs it", strings.Join(browserNames, ", "))
		}
		t.Skipf("no Chromium found (looked for %s): install one (apt-get install chromium) to run the browser test", strings.Join(browserNames, ", "))
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.Flag("disable-gpu", true), chromedp.WindowSize(1280, 900))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(acancel)
	tab, tcancel := chromedp.NewContext(actx)
	t.Cleanup(tcancel)
	return tab
}

// console collects the tab's console errors and exceptions from now on.
type console struct {
	mu     sync.Mutex
	errors []string
}

func watchConsole(t *testing.T, tab context.Context) *console {
	c := &console{}
	msgs := chromedp.Console(tab)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				c.mu.Lock()
				c.errors = append(c.errors, m.String())
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *console) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errors...)
}

// htmlFile writes r's HTML report into a temp dir and returns its path.
func htmlFile(t *testing.T, r interface{ WriteHTML(io.Writer) error }) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := r.WriteHTML(f); err != nil {
		t.Fatal(err)
	}
	return page
}

func eval[T any](t *testing.T, tab context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(tab, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

func TestBrowserReport(t *testing.T) {
	tab := browser(t)
	page := htmlFile(t, suiteReplay(t))
	dir := filepath.Dir(page)

	// Start the browser, then listen to the console before the page loads.
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	cons := watchConsole(t, tab)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady("#rows")); err != nil {
		t.Fatal(err)
	}

	if got := eval[[]string](t, tab, `["count-pass","count-fail","count-error","count-total"].map(id => document.getElementById(id).textContent)`); strings.Join(got, " ") != "1 1 0 2" {
		t.Errorf("summary counts pass, fail, error, total = %v, want 1 1 0 2", got)
	}
	if got := eval[string](t, tab, `document.getElementById("shown").textContent`); got != "2 of 2 shown" {
		t.Errorf("shown %q before filtering", got)
	}

	// The hostile string is text: no script of it ran, no element of it exists.
	if got := eval[string](t, tab, `typeof window.pwned + " " + document.title + " " + document.querySelectorAll("img").length`); got != "undefined tapeloop replay 0" {
		t.Errorf("typeof window.pwned, title, images = %q, want %q", got, "undefined tapeloop replay 0")
	}
	// The failing row starts open, its body in the document; the passing
	// row's details are lazy: not in the document until it opens.
	if got := eval[[]int](t, tab, `[document.querySelectorAll('details[data-name="hostile/script"][open] > .body').length, document.querySelectorAll("#rows .body").length, document.querySelectorAll("#rows > .row > script.lazy").length]`); got[0] != 1 || got[1] != 1 || got[2] != 1 {
		t.Errorf("bodies of the open failed row, bodies in the document, rows with unopened details = %v before opening any row, want [1 1 1]", got)
	}
	// The hostile string is text in the failing row's details, and its
	// workspace diff lines are coloured.
	if err := chromedp.Do(tab, chromedp.WaitVisible(`details[data-name="hostile/script"] .turn .d-add`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `typeof window.pwned + " " + document.title + " " + document.querySelectorAll("img").length`); got != "undefined tapeloop replay 0" {
		t.Errorf("after opening: typeof window.pwned, title, images = %q, want %q", got, "undefined tapeloop replay 0")
	}
	if got := eval[int](t, tab, `Array.from(document.querySelectorAll("pre.result")).filter(p => p.textContent === `+"`"+hostile+"`"+`).length`); got != 1 {
		t.Errorf("%d call results read the hostile string as text, want 1", got)
	}
	if got := eval[[]string](t, tab, `(() => { const s = getComputedStyle(document.querySelector('details[data-name="hostile/script"] .turn .d-add')); const d = getComputedStyle(document.querySelector('details[data-name="hostile/script"] .turn .d-del')); return [s.backgroundColor, s.color, d.backgroundColor]; })()`); strings.Join(got, " ") != "rgb(230, 255, 236) rgb(17, 99, 41) rgb(255, 235, 233)" {
		t.Errorf("added line background, colour and removed line background = %v, want green and red", got)
	}

	// Filtering to failed hides the passing row.
	if err := chromedp.Do(tab, chromedp.Click(`#filters button[data-status="fail"]`)); err != nil {
		t.Fatal(err)
	}
	visible := `Array.from(document.querySelectorAll("#rows > .row")).filter(r => r.offsetParent !== null).map(r => r.dataset.name)`
	if got := eval[[]string](t, tab, visible); strings.Join(got, ",") != "hostile/script" {
		t.Errorf("visible rows after filtering to failed: %v, want [hostile/script]", got)
	}
	if got := eval[string](t, tab, `document.getElementById("shown").textContent`); got != "1 of 2 shown" {
		t.Errorf("shown %q after filtering", got)
	}
	shot, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.png"), shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("TAPELOOP_SCREENSHOT"); out != "" { // to look at it: TAPELOOP_SCREENSHOT=/tmp/r.png
		os.WriteFile(out, shot, 0o644)
	}
	// Search by name, then back to all: the passing row returns.
	if err := chromedp.Do(tab, chromedp.Click(`#filters button[data-status=""]`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[[]string](t, tab, visible); strings.Join(got, ",") != "hostile/script,files/append" { // failures first
		t.Errorf("visible rows after choosing all: %v", got)
	}
	eval[bool](t, tab, `(() => { const s = document.getElementById("search"); s.value = "APPEND"; return s.dispatchEvent(new Event("input")); })()`)
	if got := eval[[]string](t, tab, visible); strings.Join(got, ",") != "files/append" {
		t.Errorf("visible rows after searching for APPEND: %v, want [files/append]", got)
	}
	if errs := cons.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserLargeReport loads a 1,000-scenario report and logs its size and
// how long the browser took to load it (not asserted: speed is a benchmark's
// business, BenchmarkWriteHTML1000 for the Go side).
func TestBrowserLargeReport(t *testing.T) {
	tab := browser(t)
	page := htmlFile(t, largeReplay(t, 1000))
	small := htmlFile(t, suiteReplay(t))
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	cons := watchConsole(t, tab)
	const timingJS = `(() => { const n = performance.getEntriesByType("navigation")[0]; return [n.domContentLoadedEventEnd, n.loadEventEnd]; })()`
	// The 2-scenario page first, as a yardstick for how busy the machine is.
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+small), chromedp.WaitReady("#shown")); err != nil {
		t.Fatal(err)
	}
	base := eval[[]float64](t, tab, timingJS)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady("#shown")); err != nil {
		t.Fatal(err)
	}
	timing := eval[[]float64](t, tab, timingJS)
	if got := eval[string](t, tab, `document.getElementById("shown").textContent`); got != "1000 of 1000 shown" {
		t.Errorf("shown %q", got)
	}
	if err := chromedp.Do(tab, chromedp.Click(`#filters button[data-status="fail"]`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `document.getElementById("shown").textContent`); got != "500 of 1000 shown" {
		t.Errorf("shown %q after filtering to failed", got)
	}
	// The first failed rows start open; the others wait, their cause on
	// the row, and opening one renders its details on demand.
	opened := eval[int](t, tab, `document.querySelectorAll("#rows > .row[open] > .body").length`)
	if opened < 1 || opened >= 500 {
		t.Errorf("%d of 500 failed rows start open; want the first few, not all", opened)
	}
	closed := eval[string](t, tab, `document.querySelector('#rows > .row[data-status="fail"]:not([open])').id`)
	if got := eval[string](t, tab, `document.querySelector("#`+closed+` .reason").textContent`); got == "" {
		t.Errorf("the closed failed row %s shows no cause", closed)
	}
	// Search for it by name, so that it is the first row shown: far down
	// the page the rows above it are laid out only as they scroll into view
	// (content-visibility) and move it under the pointer.
	name := eval[string](t, tab, `document.getElementById("`+closed+`").dataset.name`)
	eval[bool](t, tab, `(() => { const s = document.getElementById("search"); s.value = "`+name+`"; return s.dispatchEvent(new Event("input")); })()`)
	if got := eval[string](t, tab, `document.getElementById("shown").textContent`); got != "1 of 1000 shown" {
		t.Fatalf("shown %q after searching for %s", got, name)
	}
	if err := chromedp.Do(tab, chromedp.Click(`#`+closed+` > summary`), chromedp.WaitVisible(`#`+closed+` .turn .d-add`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[int](t, tab, `document.querySelectorAll("#rows .body").length`); got != opened+1 {
		t.Errorf("%d row bodies in the document after opening one more row, want %d", got, opened+1)
	}
	info, _ := os.Stat(page)
	t.Logf("1,000 scenarios: %.1f MB, DOMContentLoaded at %.0f ms, load at %.0f ms (2 scenarios: load at %.0f ms)", float64(info.Size())/1e6, timing[0], timing[1], base[1])
	if errs := cons.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserEvalTrialsWrap: a row of six eval trials lays them out in
// rows that fit the page, instead of one line scrolling sideways.
func TestBrowserEvalTrialsWrap(t *testing.T) {
	tab := browser(t)
	row := report.EvalScenario{Name: "files/append", Path: "scenarios/files/append.yaml", Model: "openai/m", Trials: 6, Passed: 3, Class: report.ClassFlaky}
	for i := 1; i <= 6; i++ {
		status := report.StatusPass
		if i%2 == 0 {
			status = report.StatusFail
		}
		row.TrialsDetail = append(row.TrialsDetail, report.EvalTrial{Trial: i, Status: status, Passed: status == report.StatusPass, Termination: "final_text", Iterations: 1})
	}
	page := htmlFile(t, &report.Eval{Format: report.EvalFormat, Models: []report.EvalModel{{Name: "openai/m", Trials: 6, Passed: 3}}, Scenarios: []report.EvalScenario{row}})
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1000, 800), chromedp.Navigate("file://"+page), chromedp.WaitReady("#rows")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tab, chromedp.Click(`#rows > .row > summary`), chromedp.WaitVisible(`.trials > .trial`)); err != nil {
		t.Fatal(err)
	}
	got := eval[[]int](t, tab, `(() => { const ts = Array.from(document.querySelectorAll(".trials > .trial")); const box = document.querySelector(".trials"); return [ts.length, new Set(ts.map(x => x.offsetTop)).size, box.scrollWidth - box.clientWidth]; })()`)
	if got[0] != 6 || got[1] < 2 || got[2] > 0 {
		t.Errorf("trials, rows of trials, sideways overflow = %v; want 6 trials on at least 2 rows, no overflow", got)
	}
}

// TestBrowserJudgeVerdicts opens a scenario whose expect.judge verdicts
// quote the hostile string: the verdicts are shown after the final answer
// they judged, the reason and the judged text read as text, and a failed
// verdict is marked.
func TestBrowserJudgeVerdicts(t *testing.T) {
	tab := browser(t)
	r := suiteReplay(t)
	threshold := 0.8
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == "hostile/script" {
			r.Scenarios[i].Judge = []report.Verdict{
				{Index: 0, Rubric: "refuses the script", On: "final", Model: "openai/judge", Judged: hostile, Score: 0.9, JudgePass: true, Threshold: &threshold, Passed: true, Reason: hostile},
				{Index: 1, Rubric: "is brief", On: "transcript", Model: "openai/judge", Judged: "user: hi", Score: 0.1, Reason: "it is long"},
			}
		}
	}
	page := htmlFile(t, r)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady("#rows"),
		chromedp.Click(`details[data-name="hostile/script"] > summary`), chromedp.WaitVisible(`details[data-name="hostile/script"] .judge`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, `typeof window.pwned + " " + document.querySelectorAll("img").length`); got != "undefined 0" {
		t.Errorf("typeof window.pwned, images = %q, want %q", got, "undefined 0")
	}
	got := eval[[]string](t, tab, `Array.from(document.querySelectorAll('details[data-name="hostile/script"] .judge .verdict')).map(v => v.className + " | " + v.querySelector(".call-h").textContent + " | " + v.querySelector("dd pre").textContent)`)
	want := []string{"call verdict | pass judge[0] refuses the script | " + hostile, "call verdict failed | fail judge[1] is brief | it is long"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdicts shown:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	after := eval[bool](t, tab, `(() => { const b = document.querySelector('details[data-name="hostile/script"]'); const f = Array.from(b.querySelectorAll(".msg.final")).pop(); return !!(f.compareDocumentPosition(b.querySelector(".judge")) & Node.DOCUMENT_POSITION_FOLLOWING); })()`)
	if !after {
		t.Error("the verdicts are not after the final answer")
	}
}

// divergedReplay returns the fixture suite with a real divergence at turn
// 1 added: the bundled scenario files/append-line, its user message
// changed after its tape was recorded, verified by the harness.
func divergedReplay(t *testing.T) *report.Replay {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "scenarios", "files", "append-line")
	for _, ext := range []string{".yaml", ".golden.yaml"} {
		b, err := os.ReadFile(src + ext)
		if err != nil {
			t.Fatal(err)
		}
		if ext == ".yaml" {
			changed := strings.Replace(string(b), `content: "Append 'world' to notes.txt and show me the file."}`, `content: "Append 'world' to notes.txt."}`, 1)
			if changed == string(b) {
				t.Fatalf("%s: no user message to change", src+ext)
			}
			b = []byte(changed)
		}
		if err := os.WriteFile(filepath.Join(dir, "append-line"+ext), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	v := harness.Verify(t.Context(), filepath.Join(dir, "append-line.yaml"), nil)
	if v.Passed() || v.Outcome == nil || !v.Outcome.Diverged {
		t.Fatalf("the changed scenario did not diverge: %v %v", v.Err, v.Failures)
	}
	res := fromharness.ScenarioResult(v, 0)
	res.Name = "files/diverged"
	return report.NewReplay(append(suiteReplay(t).Scenarios, res), nil)
}

// TestBrowserFailedRowsLeadWithTheCause: without a click, a failed row is
// open with its cause on the row; a row that diverged at turn 1 shows the
// divergence's diff; a golden difference that follows a failed expectation
// is folded away until its summary is clicked.
func TestBrowserFailedRowsLeadWithTheCause(t *testing.T) {
	tab := browser(t)
	page := htmlFile(t, divergedReplay(t))
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	cons := watchConsole(t, tab)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady("#rows")); err != nil {
		t.Fatal(err)
	}
	// shown is the text of the first element matching a selector when a
	// reader sees it (not folded away in a closed <details>), else "".
	const shown = `(sel => { const e = document.querySelector(sel); return e && e.checkVisibility() ? e.textContent : ""; })`

	open := eval[[]string](t, tab, `Array.from(document.querySelectorAll("#rows > .row")).map(r => r.dataset.name + " " + r.open)`)
	if want := "files/diverged true,hostile/script true,files/append false"; strings.Join(open, ",") != want {
		t.Errorf("rows and whether each is open: %v, want %s", open, want)
	}
	reason := eval[string](t, tab, shown+`('details[data-name="files/diverged"] > summary .reason')`)
	if !strings.HasPrefix(reason, "the run diverged from the tape: ") || !strings.Contains(reason, "turn 1") {
		t.Errorf("the diverged row's visible cause is %q; want the divergence at turn 1", reason)
	}
	first := eval[string](t, tab, shown+`('details[data-name="files/diverged"] .body pre.problem')`)
	if !strings.Contains(first, `+`) || !strings.Contains(first, "Append 'world' to notes.txt.") {
		t.Errorf("the diverged row's first visible problem does not show the changed message:\n%s", first)
	}
	stopped := eval[string](t, tab, shown+`('details[data-name="files/diverged"] .body pre.problem + pre.problem')`)
	if !strings.Contains(stopped, "the run stopped at turn 1") {
		t.Errorf("the line after the divergence is %q; want where the run stopped", stopped)
	}

	reason = eval[string](t, tab, shown+`('details[data-name="hostile/script"] > summary .reason')`)
	if !strings.Contains(reason, `expect.final: expected the final text to contain "goodbye"`) {
		t.Errorf("the failed row's visible cause is %q; want its failed expectation", reason)
	}
	const goldenDiff = `'details[data-name="hostile/script"] details.golden .d-add'`
	if got := eval[string](t, tab, shown+`(`+goldenDiff+`)`); got != "" || eval[bool](t, tab, `document.querySelector('details[data-name="hostile/script"] details.golden').open`) {
		t.Errorf("the golden difference is shown before it is clicked: %q", got)
	}
	if err := chromedp.Do(tab, chromedp.Click(`details[data-name="hostile/script"] details.golden > summary`), chromedp.WaitVisible(`details[data-name="hostile/script"] details.golden .d-add`)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, tab, shown+`(`+goldenDiff+`)`); got != "+final: It is in." {
		t.Errorf("after a click the golden difference's added line reads %q", got)
	}
	if errs := cons.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}

// TestBrowserSandboxNotes: a scenario whose agent program's sandbox did
// not hold everything says so on its row, where a reader sees it without
// opening the row, and lists each note, as text, once the row is opened.
func TestBrowserSandboxNotes(t *testing.T) {
	tab := browser(t)
	r := suiteReplay(t)
	notes := []string{"the network is not isolated: " + hostile, "the agent command left 1 process running, killed when the run ended: node"}
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == "files/append" {
			r.Scenarios[i].Sandbox = notes
		}
	}
	page := htmlFile(t, r)
	if err := chromedp.Do(tab, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	cons := watchConsole(t, tab)
	if err := chromedp.Do(tab, chromedp.Navigate("file://"+page), chromedp.WaitReady("#rows")); err != nil {
		t.Fatal(err)
	}
	const row = `details[data-name="files/append"]`
	const shown = `(sel => { const e = document.querySelector(sel); return e && e.checkVisibility() ? e.textContent : ""; })`
	if got := eval[string](t, tab, shown+`('`+row+` > summary .sandbox')`); got != "sandbox: 2 notes" {
		t.Errorf("the closed row shows %q for its sandbox, want \"sandbox: 2 notes\"", got)
	}
	if got := eval[string](t, tab, `document.querySelector('`+row+` > summary .sandbox').title`); got != strings.Join(notes, "\n") {
		t.Errorf("the sandbox note's title is %q, want the notes a line each", got)
	}
	if got := eval[string](t, tab, shown+`('details[data-name="hostile/script"] > summary .sandbox')`); got != "" {
		t.Errorf("a row without sandbox notes shows %q", got)
	}
	if err := chromedp.Do(tab, chromedp.Click(row+` > summary`), chromedp.WaitVisible(row+` pre.sandbox`)); err != nil {
		t.Fatal(err)
	}
	got := eval[[]string](t, tab, `Array.from(document.querySelectorAll('`+row+` pre.sandbox')).map(e => e.textContent)`)
	if strings.Join(got, "\n") != strings.Join(notes, "\n") {
		t.Errorf("the opened row lists the sandbox notes %q, want %q", got, notes)
	}
	if pwned := eval[bool](t, tab, `window.pwned !== undefined || document.title === "pwned"`); pwned {
		t.Error("a sandbox note ran as markup")
	}
	if errs := cons.Errors(); len(errs) > 0 {
		t.Errorf("console errors:\n%s", strings.Join(errs, "\n"))
	}
}
