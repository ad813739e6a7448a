package sandbox

import (
	"errors"
	"strings"
	"testing"
)

// TestStatus: a status names what holds and why each missing guarantee
// does not, and requiring a missing one is an error naming the reason.
func TestStatus(t *testing.T) {
	s := Status{Missing: map[Guarantee]string{Processes: "no PID namespace"}}
	if got, want := s.String(), "the sandbox holds: none; not processes: no PID namespace"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	err := s.check(Processes)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "processes: no PID namespace") {
		t.Errorf("check(Processes) = %v, want ErrUnavailable naming the reason", err)
	}
	if err := s.check(0); err != nil {
		t.Errorf("check(0) = %v, want nil", err)
	}
	if err := (Status{Held: All}).check(All); err != nil {
		t.Errorf("all held: check(All) = %v, want nil", err)
	}
}

// TestOpenRequire: Open refuses a Box that cannot give what is required,
// and gives one that can.
func TestOpenRequire(t *testing.T) {
	st := Probe()
	b, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Require: st.Held})
	if err != nil {
		t.Fatalf("Open requiring what Probe holds (%s): %v", st.Held, err)
	}
	if b.Holds() != st.Held {
		t.Errorf("the Box holds %s, Probe %s", b.Holds(), st.Held)
	}
	if r := b.End(); !r.Empty() {
		t.Errorf("a Box that ran nothing reports %s", r)
	}
	if missing := All &^ st.Held; missing != 0 {
		if _, err := Open(&Config{Workspace: t.TempDir(), Home: t.TempDir(), Require: missing}); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Open requiring %s, which is missing: %v, want ErrUnavailable", missing, err)
		}
	}
}
