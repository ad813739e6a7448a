package ginkgoharness

import (
	"fmt"
	"strings"

	"github.com/onsi/gomega/types"

	"github.com/tapeloop/tapeloop/harness"
	"github.com/tapeloop/tapeloop/internal/udiff"
)

// HaveFileContent succeeds when, at the end of the run, the workspace of the
// actual *Outcome holds the file at path (slash-separated, relative to the
// workspace) with exactly content. Binary files hold their placeholder, as in
// the golden ("<binary, N bytes>").
//
//	Expect(outcome).To(ginkgoharness.HaveFileContent("notes.txt", "hello\nworld\n"))
func HaveFileContent(path, content string) types.GomegaMatcher {
	return &haveFileContentMatcher{path: path, want: content}
}

// HaveNoFile succeeds when, at the end of the run, the workspace of the actual
// *Outcome has no file at path. It lives beside HaveFileContent because both
// read the same end state.
//
//	Expect(outcome).To(ginkgoharness.HaveNoFile("old.txt"))
func HaveNoFile(path string) types.GomegaMatcher {
	return &haveNoFileMatcher{path: path}
}

// endFile returns the content of the file at path at the end of the run.
func endFile(o *harness.Outcome, path string) (string, bool) {
	for _, f := range o.Workspace {
		if f.Path == path {
			return f.Content, true
		}
	}
	return "", false
}

// endFiles lists the workspace's files, for messages about a missing one.
func endFiles(o *harness.Outcome) string {
	if len(o.Workspace) == 0 {
		return "the workspace is empty"
	}
	paths := make([]string, len(o.Workspace))
	for i, f := range o.Workspace {
		paths[i] = f.Path
	}
	return "files: " + strings.Join(paths, ", ")
}

// contentDifference renders an expected and an actual text for a message:
// both quoted when short, else the first difference of a unified diff.
func contentDifference(want, got string) string {
	if len(want) <= 200 && len(got) <= 200 {
		return fmt.Sprintf("%q, but it holds %q", want, got)
	}
	return fmt.Sprintf("%q, but it differs (- expected, + actual; first difference):\n%s", clip(want), udiff.FirstHunk(want, got))
}

type haveFileContentMatcher struct {
	path, want string
}

// Match compares the file's end content with the expected one.
func (m *haveFileContentMatcher) Match(actual any) (bool, error) {
	o, err := outcomeOf("HaveFileContent", actual)
	if err != nil {
		return false, err
	}
	got, ok := endFile(o, m.path)
	return ok && got == m.want, nil
}

// FailureMessage shows both contents (or their first difference when long),
// or says the file does not exist.
func (m *haveFileContentMatcher) FailureMessage(actual any) string {
	o, err := outcomeOf("HaveFileContent", actual)
	if err != nil {
		return err.Error()
	}
	msg := fmt.Sprintf("Expected scenario %s to end with %s holding ", o.Name, m.path)
	got, ok := endFile(o, m.path)
	if !ok {
		return msg + fmt.Sprintf("%q, but there is no such file (%s)", clip(m.want), endFiles(o))
	}
	return msg + contentDifference(m.want, got)
}

// NegatedFailureMessage says the file holds what it should not.
func (m *haveFileContentMatcher) NegatedFailureMessage(actual any) string {
	o, err := outcomeOf("HaveFileContent", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s not to end with %s holding %q, but it does", o.Name, m.path, clip(m.want))
}

type haveNoFileMatcher struct {
	path string
}

// Match reports whether the file is absent at the end of the run.
func (m *haveNoFileMatcher) Match(actual any) (bool, error) {
	o, err := outcomeOf("HaveNoFile", actual)
	if err != nil {
		return false, err
	}
	_, ok := endFile(o, m.path)
	return !ok, nil
}

// FailureMessage quotes the file that should not exist.
func (m *haveNoFileMatcher) FailureMessage(actual any) string {
	o, err := outcomeOf("HaveNoFile", actual)
	if err != nil {
		return err.Error()
	}
	got, _ := endFile(o, m.path)
	return fmt.Sprintf("Expected scenario %s to end without %s, but it holds %q", o.Name, m.path, clip(got))
}

// NegatedFailureMessage says the file that should exist does not.
func (m *haveNoFileMatcher) NegatedFailureMessage(actual any) string {
	o, err := outcomeOf("HaveNoFile", actual)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("Expected scenario %s to end with a file %s, but there is no such file (%s)", o.Name, m.path, endFiles(o))
}
