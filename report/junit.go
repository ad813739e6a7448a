package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// junitSuites is the document: GitHub's and GitLab's readers take the
// common shape (testsuites > testsuite > testcase, with failure, error,
// properties and system-out).
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name       string           `xml:"name,attr"`
	Classname  string           `xml:"classname,attr"`
	Time       string           `xml:"time,attr"`
	File       string           `xml:"file,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitProblem    `xml:"failure,omitempty"`
	Error      *junitProblem    `xml:"error,omitempty"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the result as JUnit XML: one testcase per scenario, its
// failure message the first failure's first line (the first difference from
// the golden, or a failed expectation), the failure body every failure, and
// system-out the transcript, after the notes of the scenario's sandbox
// (ScenarioResult.Sandbox, each also a "sandbox" property).
func (r *Replay) WriteJUnit(w io.Writer) error {
	return r.stream().WriteJUnit(w)
}

func writeXML(w io.Writer, doc any) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// failureMessage is the first difference's header or the first failure's
// first line, with how many more there are.
func failureMessage(s ScenarioResult) string {
	if len(s.Failures) == 0 {
		return "failed"
	}
	msg := goldenChange(s.Failures[0], s.GoldenDifference)
	if n := len(s.Failures) - 1; n > 0 {
		msg += fmt.Sprintf(" (and %d more)", n)
	}
	return msg
}

// goldenChange is the first line of failure; when failure is the golden
// difference diff, its header with the diff's first change in place of
// the marker ("the outcome differs from the golden file G: -a +b").
func goldenChange(failure, diff string) string {
	msg := firstLine(failure)
	if strings.HasPrefix(failure, goldenDifferencePrefix) && diff != "" {
		msg = strings.TrimSuffix(msg, " "+strings.TrimSuffix(goldenDifferenceMarker, ":\n")+":") + ": " + firstChange(diff)
	}
	return msg
}

// firstChange is a diff's first removed and first added line, side by side.
func firstChange(diff string) string {
	var del, add string
	for _, l := range diffLines(diff) {
		switch {
		case l.Class == "del" && del == "":
			del = l.Text
		case l.Class == "add" && add == "":
			add = l.Text
		}
	}
	return strings.TrimSpace(del + " " + add)
}

func failureType(s ScenarioResult) string {
	if s.GoldenDifference != "" {
		return "golden"
	}
	return "failure"
}

// classname is the scenario's folder (its group), so readers group by it.
func classname(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return strings.ReplaceAll(name[:i], "/", ".")
	}
	return "scenarios"
}

func seconds(s float64) string { return fmt.Sprintf("%.6f", s) }

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
