package scenario

import (
	"strings"
	"unicode"
)

// nameProblem says what is wrong with a scenario's name, or "" when
// nothing is. A name becomes paths (eval --save-trials writes
// DIR/NAME/MODEL/trial-N.yaml) and is printed, so it is a relative path of
// segments separated by "/": not absolute, no empty, "." or ".." segment,
// no backslash and no control character.
func nameProblem(name string) string {
	switch {
	case name == "":
		return "is empty"
	case strings.HasPrefix(name, "/"):
		return "is an absolute path; a name is a relative path like files/append"
	case strings.ContainsFunc(name, unicode.IsControl):
		return "holds a control character"
	case strings.Contains(name, `\`):
		return `holds a backslash; separate a name's parts with "/"`
	}
	for _, seg := range strings.Split(name, "/") {
		switch seg {
		case "":
			return `has an empty part ("//", or "/" at its start or end)`
		case ".", "..":
			return `has a "` + seg + `" part; a name stays inside the folder it is saved under`
		}
	}
	return ""
}
