package tools

import (
	"reflect"
	"testing"
)

// TestNormalizeKeepsFailureContent: a failed result with its own content
// keeps it; only an empty one gets the failure's text.
func TestNormalizeKeepsFailureContent(t *testing.T) {
	own := &Result{Content: "disk full, try later", Failure: &Failure{Kind: KindFailed, Message: "ENOSPC"}}
	if got := normalize("w", own, nil); got.Content != "disk full, try later" {
		t.Errorf("content %q, want the tool's own", got.Content)
	}
	bare := &Result{Failure: &Failure{Kind: KindFailed, Message: "ENOSPC"}}
	if got, want := normalize("w", bare, nil).Content, failureContent(KindFailed, "ENOSPC"); got != want || got == "" {
		t.Errorf("content %q, want %q", got, want)
	}
}

// TestCloneKeepsNilAndCopiesMaps: Clone keeps nil Details and Effects nil and
// copies non-nil ones, so that changing the copy leaves the original alone.
func TestCloneKeepsNilAndCopiesMaps(t *testing.T) {
	if c := (&Result{Content: "x"}).Clone(); c.Details != nil || c.Effects != nil {
		t.Errorf("Clone of nil details/effects = %#v, %#v; want nil", c.Details, c.Effects)
	}
	r := &Result{Details: map[string]string{"k": "v"}, Effects: []Effect{FileChange(OpCreate, "a", 1)}}
	c := r.Clone()
	c.Details["k"] = "changed"
	c.Effects[0] = FileChange(OpDelete, "b", 0)
	if r.Details["k"] != "v" || !reflect.DeepEqual(r.Effects, []Effect{FileChange(OpCreate, "a", 1)}) {
		t.Errorf("changing the clone changed the original: %v %v", r.Details, r.Effects)
	}
}
