package bridge_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tapeloop/tapeloop/llm/wire"
)

// TestCompatibilityTable keeps docs/bridge.md's compatibility table true
// to the repository: each row's proof names tests that exist (a file
// holding func TestName, and each /subtest a t.Run of that literal name
// in it), every wire format has a row, and the "streamed" column says
// what the proofs prove (streamedProof).
func TestCompatibilityTable(t *testing.T) {
	doc, err := os.ReadFile("../docs/bridge.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range checkCompatibility(string(doc), "..") {
		t.Error(err)
	}
}

// streamedFixture is a Go file a table row in
// TestCompatibilityTableStreamed names as its proof: TestClient's claude
// subtest has a streamed subtest, its gemini one only a json one.
const streamedFixture = `package fixture_test

import "testing"

func TestClient(t *testing.T) {
	t.Run("claude", func(t *testing.T) {
		t.Run("json", func(t *testing.T) {})
		t.Run("stream", func(t *testing.T) {})
	})
	t.Run("gemini", func(t *testing.T) {
		t.Run("json", func(t *testing.T) {})
		t.Run("upstream mirror", func(t *testing.T) {})
	})
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream=1"}[stream], func(t *testing.T) {})
	}
}

func TestPlain(t *testing.T) {}
`

// TestCompatibilityTableStreamed checks the rule of the "streamed"
// column on tables of one row naming streamedFixture's tests: a row that
// says it streams fails unless a proof it names has a streamed subtest,
// and a row that says it does not fails when one has.
func TestCompatibilityTableStreamed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "fixture_test.go"), []byte(streamedFixture), 0o644); err != nil {
		t.Fatal(err)
	}
	row := func(streamed, proof string) string {
		return "\n## Compatibility\n\n| client | format | streamed | record | replay | eval | proof |\n|---|---|---|---|---|---|---|\n" +
			"| a client | openai | " + streamed + " | forwarded | yes | as record | " + proof + " |\n"
	}
	const unproved = `row "a client" says streamed "both", but no proof named has a streamed subtest (a t.Run whose name has the word "stream")`
	for _, tc := range []struct {
		name, doc string
		wants     []string // the errors, in order; none: the table holds
	}{
		{"both, a streamed subtest", row("both", "fixture_test.go:TestClient"), nil},
		{"yes, in the subtest named", row("yes", "fixture_test.go:TestClient/claude"), nil},
		{"both, one proof of two streams", row("both", "fixture_test.go:TestPlain, fixture_test.go:TestClient/claude"), nil},
		{"no, no streamed subtest", row("no", "fixture_test.go:TestClient/gemini"), nil},
		{"both, only json and upstream", row("both", "fixture_test.go:TestClient/gemini"), []string{unproved}},
		{"both, no subtests", row("both", "fixture_test.go:TestPlain"), []string{unproved}},
		{"no, a streamed subtest", row("no", "fixture_test.go:TestClient/claude"),
			[]string{`row "a client" says streamed "no", but fixture_test.go:TestClient/claude has a streamed subtest`}},
		{"not a word of the column", row("partly", "fixture_test.go:TestClient/gemini"),
			[]string{`row "a client": streamed "partly" is not both, yes or no`}},
		{"no such subtest", row("no", "fixture_test.go:TestClient/openai"),
			[]string{`row "a client": fixture_test.go: TestClient has no t.Run("openai", ...)`}},
		{"no such test", row("no", "fixture_test.go:TestOther"),
			[]string{`row "a client": fixture_test.go: no func TestOther`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, err := range checkCompatibility(tc.doc, root) {
				if !strings.Contains(err.Error(), "has no row of the") {
					got = append(got, err.Error())
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.wants, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.wants, "\n"))
			}
		})
	}
}

// checkCompatibility returns what is untrue in doc's compatibility table,
// the proofs' files read below root.
func checkCompatibility(doc, root string) []error {
	_, section, ok := strings.Cut(doc, "\n## Compatibility\n")
	if !ok {
		return []error{fmt.Errorf("docs/bridge.md has no Compatibility section")}
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var errs []error
	formats := map[string]bool{}
	rows := 0
	proof := regexp.MustCompile(`^([\w./-]+_test\.go):(Test\w+)((?:/[\w-]+)*)$`)
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cells) != 7 || cells[0] == "client" {
			continue
		}
		rows++
		formats[cells[1]] = true
		claims := cells[2]
		if claims != "both" && claims != "yes" && claims != "no" {
			errs = append(errs, fmt.Errorf("row %q: streamed %q is not both, yes or no", cells[0], claims))
		}
		proved := false
		for _, p := range strings.Split(cells[6], ", ") {
			m := proof.FindStringSubmatch(p)
			if m == nil {
				errs = append(errs, fmt.Errorf("row %q: the proof %q is not FILE_test.go:TestName[/subtest]", cells[0], p))
				continue
			}
			scope, err := findTest(filepath.Join(root, m[1]), m[2], strings.Split(m[3], "/")[1:])
			if err != nil {
				errs = append(errs, fmt.Errorf("row %q: %s: %w", cells[0], m[1], err))
				continue
			}
			if streamedProof(scope) {
				proved = true
				if claims == "no" {
					errs = append(errs, fmt.Errorf("row %q says streamed %q, but %s has a streamed subtest", cells[0], claims, p))
				}
			}
		}
		if (claims == "both" || claims == "yes") && !proved {
			errs = append(errs, fmt.Errorf("row %q says streamed %q, but no proof named has a streamed subtest (a t.Run whose name has the word %q)", cells[0], claims, "stream"))
		}
	}
	if rows == 0 {
		return append(errs, fmt.Errorf("the Compatibility table has no rows"))
	}
	for _, f := range wire.Formats {
		if !formats[f.String()] {
			errs = append(errs, fmt.Errorf("the Compatibility table has no row of the %s format", f))
		}
	}
	return errs
}

// findTest returns the body of the test name in the Go file path, or of
// its subtest by the path subtests: each a t.Run of that literal name in
// the one before.
func findTest(path, name string, subtests []string) (*ast.BlockStmt, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	var body *ast.BlockStmt
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == name {
			body = fn.Body
		}
	}
	if body == nil {
		return nil, fmt.Errorf("no func %s", name)
	}
	for _, sub := range subtests {
		var found *ast.BlockStmt
		for _, run := range subtestRuns(body) {
			if lit, ok := run.Args[0].(*ast.BasicLit); ok && lit.Value == strconv.Quote(sub) {
				found = run.Args[1].(*ast.FuncLit).Body
				break
			}
		}
		if found == nil {
			return nil, fmt.Errorf("%s has no t.Run(%q, ...)", name, sub)
		}
		body, name = found, name+"/"+sub
	}
	return body, nil
}

// subtestRuns are the calls X.Run(name, func literal) anywhere in body.
func subtestRuns(body *ast.BlockStmt) []*ast.CallExpr {
	var runs []*ast.CallExpr
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) != 2 {
			return true
		}
		if sel, ok := c.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" {
			if _, ok := c.Args[1].(*ast.FuncLit); ok {
				runs = append(runs, c)
			}
		}
		return true
	})
	return runs
}

// streamWord is "stream" as a word of a subtest's name.
var streamWord = regexp.MustCompile(`(^|[^A-Za-z])stream($|[^A-Za-z])`)

// streamedProof reports whether body runs a streamed subtest: a t.Run
// whose name is made with a string literal having the word "stream"
// ("stream", "/stream", "stream=1", "chained %v stream %v"). Through
// bridge/internal/clientproof, a subtest named "stream" also fails unless
// the bridge answered the agent in streams.
func streamedProof(body *ast.BlockStmt) bool {
	for _, run := range subtestRuns(body) {
		streamed := false
		ast.Inspect(run.Args[0], func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && streamWord.MatchString(s) {
					streamed = true
				}
			}
			return !streamed
		})
		if streamed {
			return true
		}
	}
	return false
}
