package report

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestReadResultSizeLimit: a result file of exactly the size limit is read;
// one byte over it is refused, naming the file, before it is read.
func TestReadResultSizeLimit(t *testing.T) {
	src := filepath.Join("testdata", "suite.json")
	info, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	defer func(old int64) { maxResultBytes = old }(maxResultBytes)

	maxResultBytes = info.Size()
	want, err := ReadReplay(src)
	if err != nil {
		t.Fatalf("a file of exactly the limit (%d bytes): %v, want it read", info.Size(), err)
	}
	if len(want.Scenarios) == 0 {
		t.Fatalf("%s holds no scenario: the test would prove little", src)
	}
	if r, err := Read(src); err != nil {
		t.Errorf("Read of a file of exactly the limit: %v, want it read", err)
	} else if got, ok := r.(*Replay); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("Read of a replay result: %#v, want the replay ReadReplay reads", r)
	}

	maxResultBytes = info.Size() - 1
	for name, read := range map[string]func(string) error{
		"ReadReplay": func(p string) error { _, err := ReadReplay(p); return err },
		"Read":       func(p string) error { _, err := Read(p); return err },
	} {
		err := read(src)
		if !errors.Is(err, ErrResult) || !strings.Contains(err.Error(), src) || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("%s of a file one byte over the limit: %v, want an ErrResult naming %s and the limit", name, err, src)
		}
	}
}
