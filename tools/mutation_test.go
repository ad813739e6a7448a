package tools

import (
	"reflect"
	"testing"
)

// Tests that close mutants scripts/mutation found alive: each checks a
// behaviour the other tests left open.

// TestEffectOfZeroBytesIsValid: a file effect that wrote nothing (Bytes 0)
// is valid; only a negative count is not.
func TestEffectOfZeroBytesIsValid(t *testing.T) {
	if err := FileChange(OpModify, "a.txt", 0).Validate(); err != nil {
		t.Errorf("Validate of a 0-byte change: %v", err)
	}
	if err := FileChange(OpModify, "a.txt", -1).Validate(); err == nil {
		t.Error("Validate of a -1-byte change succeeded")
	}
}

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

// TestRemoveProviderOfNothingKeepsSnapshot: removing a provider that has no
// tools changes nothing, so the cached snapshot and the version stay; a
// removal that removes a tool makes a new one without it.
func TestRemoveProviderOfNothingKeepsSnapshot(t *testing.T) {
	r := NewRegistry(nil)
	if err := r.RegisterProvider("mcp:files", echoTool(t, "a")); err != nil {
		t.Fatal(err)
	}
	before := r.Snapshot()
	if n := r.RemoveProvider("mcp:other"); n != 0 || r.Snapshot() != before || r.Version() != before.Version() {
		t.Errorf("removing nothing (%d) replaced the snapshot or moved the version", n)
	}
	if n := r.RemoveProvider("mcp:files"); n != 1 || r.Snapshot().Len() != 0 || r.Version() == before.Version() {
		t.Errorf("removed %d; snapshot holds %d tools at version %d (was %d)", n, r.Snapshot().Len(), r.Version(), before.Version())
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
