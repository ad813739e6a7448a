package evalrun

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/tapeloop/tapeloop/internal/atomicfile"
)

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// writeJUnit writes the results as JUnit XML, atomically.
func writeJUnit(path string, results []*replayResult) error {
	suite := junitSuite{Name: "tapeloop"}
	var total float64
	for _, r := range results {
		c := junitCase{Name: r.Name, Classname: "scenarios", Time: fmt.Sprintf("%.6f", r.elapsed.Seconds())}
		total += r.elapsed.Seconds()
		switch {
		case r.Err != nil:
			c.Error = &junitProblem{Message: firstLine(r.Err.Error()), Body: r.Err.Error()}
			suite.Errors++
		case !r.Passed():
			c.Failure = &junitProblem{Message: firstLine(r.Failures[0]), Body: strings.Join(r.Failures, "\n\n")}
			suite.Failures++
		}
		suite.Cases = append(suite.Cases, c)
	}
	suite.Tests = len(results)
	suite.Time = fmt.Sprintf("%.6f", total)
	return atomicfile.Write(path, func(w io.Writer) error {
		io.WriteString(w, xml.Header)
		enc := xml.NewEncoder(w)
		enc.Indent("", "  ")
		if err := enc.Encode(junitSuites{Suites: []junitSuite{suite}}); err != nil {
			return err
		}
		_, err := io.WriteString(w, "\n")
		return err
	})
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
