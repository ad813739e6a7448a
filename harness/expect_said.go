package harness

import (
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/tapeloop/tapeloop/agent"
	"github.com/tapeloop/tapeloop/internal/yamlx"
	"github.com/tapeloop/tapeloop/llm"
)

// SaidExpect is one item of expect.said: text that some assistant message of
// the run holds (not only the last). Exactly one of Equals, Contains and
// Matches is set.
type SaidExpect struct {
	Equals   *string
	Contains *string
	Matches  *regexp.Regexp
	// IgnoreCase applies to Equals, Contains and Matches alike.
	IgnoreCase bool
	line       int
}

var saidKeys = []string{"equals", "contains", "matches", "ignore_case"}

func decodeSaid(d *yamlx.Decoder, n *yaml.Node, path string) ([]SaidExpect, error) {
	if err := d.Want(n, path, yaml.SequenceNode); err != nil {
		return nil, err
	}
	var out []SaidExpect
	for i, c := range n.Content {
		p := yamlx.Index(path, i)
		if c.Kind == yaml.ScalarNode {
			return nil, d.Errf(c, p, "want a mapping {equals|contains|matches: TEXT, ignore_case?}, got %s; write {contains: %q}", yamlx.Describe(c), c.Value)
		}
		se := SaidExpect{line: c.Line}
		var pattern *yaml.Node
		var texts int
		_, err := d.Fields(c, p, saidKeys, func(key string, v *yaml.Node) error {
			var err error
			switch key {
			case "ignore_case":
				se.IgnoreCase, err = d.Bool(v, yamlx.Join(p, key))
				return err
			case "matches":
				pattern = v
			}
			texts++
			s, err := d.Str(v, yamlx.Join(p, key))
			switch key {
			case "equals":
				se.Equals = &s
			case "contains":
				se.Contains = &s
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if texts != 1 {
			return nil, d.Errf(c, p, "want exactly one of equals, contains and matches, found %d", texts)
		}
		if pattern != nil {
			expr := pattern.Value
			if se.IgnoreCase {
				expr = "(?i)" + expr
			}
			re, err := regexp.Compile(expr)
			if err != nil {
				return nil, d.Errf(pattern, yamlx.Join(p, "matches"), "invalid regular expression: %v", err)
			}
			se.Matches = re
		}
		out = append(out, se)
	}
	return out, nil
}

// holds reports whether text satisfies the expectation.
func (se *SaidExpect) holds(text string) bool {
	switch {
	case se.Equals != nil && se.IgnoreCase:
		return strings.EqualFold(text, *se.Equals)
	case se.Equals != nil:
		return text == *se.Equals
	case se.Contains != nil && se.IgnoreCase:
		return strings.Contains(strings.ToLower(text), strings.ToLower(*se.Contains))
	case se.Contains != nil:
		return strings.Contains(text, *se.Contains)
	}
	return se.Matches.MatchString(text)
}

// describe says what was expected: `to contain "x" (ignoring case)`.
func (se *SaidExpect) describe() string {
	var s string
	switch {
	case se.Equals != nil:
		s = fmt.Sprintf("to equal %q", *se.Equals)
	case se.Contains != nil:
		s = fmt.Sprintf("to contain %q", *se.Contains)
	default:
		s = fmt.Sprintf("to match %q", strings.TrimPrefix(se.Matches.String(), "(?i)"))
	}
	if se.IgnoreCase {
		s += " (ignoring case)"
	}
	return s
}

// assistantTexts returns the text of every assistant message of the run that
// has any, in order (text-written calls already taken out).
func assistantTexts(run *agent.RunResult) []string {
	var out []string
	if run == nil {
		return out
	}
	for _, m := range run.Messages {
		if m.Role == llm.RoleAssistant && m.Content != "" {
			out = append(out, m.Content)
		}
	}
	return out
}

// checkSaid returns a message per said item that no assistant text holds,
// naming file and line.
func checkSaid(file string, said []SaidExpect, run *agent.RunResult) []Failure {
	texts := assistantTexts(run)
	var out []Failure
	for i, se := range said {
		found := false
		for _, t := range texts {
			found = found || se.holds(t)
		}
		if found {
			continue
		}
		quoted := make([]string, len(texts))
		for k, t := range texts {
			quoted[k] = fmt.Sprintf("%q", clip(t))
		}
		among := "the run has no assistant text"
		if len(texts) > 0 {
			among = fmt.Sprintf("found none among %d: %s", len(texts), strings.Join(quoted, ", "))
		}
		key := fmt.Sprintf("said[%d]", i)
		out = append(out, Failure{Key: key, Message: fmt.Sprintf("%s:%d: expect.%s: expected an assistant message %s, %s", file, se.line, key, se.describe(), among)})
	}
	return out
}
