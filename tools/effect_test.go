package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestEffectValidate(t *testing.T) {
	tests := []struct {
		name string
		e    Effect
		ok   bool
	}{
		{"file modify", FileChange(OpModify, "a.txt", 3), true},
		{"rename", FileRename("a", "b", 3), true},
		{"process", ProcessRun("go test ./...", 1), true},
		{"empty", Effect{}, false},
		{"both", Effect{File: &FileEffect{Op: OpCreate, Path: "a"}, Process: &ProcessEffect{Command: "x"}}, false},
		{"unknown op", Effect{File: &FileEffect{Op: "chmod", Path: "a"}}, false},
		{"no path", Effect{File: &FileEffect{Op: OpCreate}}, false},
		{"rename without from", Effect{File: &FileEffect{Op: OpRename, Path: "b"}}, false},
		{"from without rename", Effect{File: &FileEffect{Op: OpModify, Path: "b", From: "a"}}, false},
		{"negative bytes", Effect{File: &FileEffect{Op: OpCreate, Path: "b", Bytes: -1}}, false},
		{"process without command", Effect{Process: &ProcessEffect{}}, false},
	}
	for _, tc := range tests {
		err := tc.e.Validate()
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok=%v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidEffect) {
			t.Errorf("%s: error %v does not wrap ErrInvalidEffect", tc.name, err)
		}
	}
}

func TestEffectRoundTripsThroughJSONAndYAML(t *testing.T) {
	effects := []Effect{FileRename("old.txt", "new.txt", 12), ProcessRun("make", 2)}
	js, err := json.Marshal(effects)
	if err != nil {
		t.Fatal(err)
	}
	if want := `[{"file":{"op":"rename","path":"new.txt","from":"old.txt","bytes":12}},{"process":{"command":"make","exit_code":2}}]`; string(js) != want {
		t.Errorf("JSON = %s\nwant   %s", js, want)
	}
	var back []Effect
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(back, effects) {
		t.Errorf("JSON round trip: %v %v", back, err)
	}
	ys, err := yaml.Marshal(effects)
	if err != nil {
		t.Fatal(err)
	}
	back = nil
	if err := yaml.Unmarshal(ys, &back); err != nil || !reflect.DeepEqual(back, effects) {
		t.Errorf("YAML round trip of\n%s: %v %v", ys, back, err)
	}
}

func TestResultConstructors(t *testing.T) {
	if r := ValidationFailure("count must be positive.", "send a count of 1 or more"); r.Content != "error (validation): count must be positive. Fix: send a count of 1 or more" {
		t.Errorf("ValidationFailure content %q", r.Content)
	}
	if r := Fail(KindTimeout, ""); r.Content != "error (timeout): the tool did not finish in time" {
		t.Errorf("default message %q", r.Content)
	}
	if r := FromError(errors.New("boom")); r.Kind() != KindFailed {
		t.Errorf("FromError kind %q", r.Kind())
	}
	if r := FromError(Errorf(KindTransient, "later")); r.Kind() != KindTransient {
		t.Errorf("FromError typed kind %q", r.Kind())
	}
	if !Terminating("done").Terminate {
		t.Error("Terminating does not terminate")
	}
	if _, err := ParseFailureKind("oops"); err == nil {
		t.Error("ParseFailureKind accepted an unknown kind")
	}
}

func TestTypedDecoding(t *testing.T) {
	var in fileArgs
	if err := DecodeArguments(json.RawMessage(`{"path":"x","count":2}`), &in); err != nil || in.Path != "x" || in.Count != 2 {
		t.Errorf("decoded %+v, %v", in, err)
	}
	err := DecodeArguments(json.RawMessage(`{"path":"x","bogus":1}`), &in)
	if KindOf(err) != KindValidation {
		t.Errorf("unknown field: %v (kind %s)", err, KindOf(err))
	}
	if err := DecodeArguments(json.RawMessage(`{"path":"x"} {}`), &in); err == nil {
		t.Error("trailing data accepted")
	}
}

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
