package evalrun

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

// runRepairCmd runs evalrun repair with args on stdin.
func runRepairCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWithStdin(t, stdin, append([]string{"repair"}, args...)...)
}

func TestRepairCommand(t *testing.T) {
	tests := []struct {
		name      string
		args      []string
		stdin     string
		code      int
		stdout    string
		stderrHas string // a substring of stderr; empty: stderr must be empty
	}{
		{"repairs", nil, `{"a":1,`, exitOK, `{"output":"{\"a\":1}","fixes":["trailing_comma","close_brackets"]}` + "\n", ""},
		{"valid has empty fixes", nil, `[1]`, exitOK, `{"output":"[1]","fixes":[]}` + "\n", ""},
		{"refusal", nil, `{"a" ]`, exitFailed,
			`{"error":"re-emit the call as valid JSON: unexpected ']' where ':' should follow the key at line 1, column 6"}` + "\n",
			"unexpected ']' where ':' should follow the key"},
		{"jsonl in order", []string{"--jsonl"}, "{\"input\":\"[1,\"}\n\n{\"input\":\"{}\"}\n{\"input\":\"\"}",
			exitFailed,
			`{"output":"[1]","fixes":["trailing_comma","close_brackets"]}` + "\n" +
				`{"output":"{}","fixes":[]}` + "\n" +
				`{"error":"re-emit the call as valid JSON: the input holds no JSON value at line 1, column 1"}` + "\n", ""},
		{"jsonl all repaired", []string{"-jsonl"}, "{\"input\":\"{a:\\\"<b>\\\"}\"}\n", exitOK,
			`{"output":"{\"a\":\"<b>\"}","fixes":["unquoted_keys"]}` + "\n", ""},
		{"jsonl malformed line", []string{"--jsonl"}, "{\"input\":\"[1]\"}\nnot json\n", exitUsage,
			`{"output":"[1]","fixes":[]}` + "\n", "stdin:2: malformed line"},
		{"jsonl line without input", []string{"--jsonl"}, "{\"text\":\"x\"}\n", exitUsage, "", `evalrun repair: stdin:1: malformed line: missing "input"` + "\n"},
		{"jsonl malformed after a blank line", []string{"--jsonl"}, "{\"input\":\"[1]\"}\n \r\n{\"input\": 1}\n", exitUsage,
			`{"output":"[1]","fixes":[]}` + "\n",
			"evalrun repair: stdin:3: malformed line: json: cannot unmarshal number"},
		{"bad flag", []string{"--nope"}, "", exitUsage, "", "flag provided but not defined"},
		{"stray argument", []string{"file.json"}, "", exitUsage, "", `unexpected argument "file.json"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runRepairCmd(t, tt.stdin, tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr)
			}
			if stdout != tt.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tt.stdout)
			}
			if tt.stderrHas == "" && stderr != "" {
				t.Errorf("stderr %q, want it empty", stderr)
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr %q lacks %q", stderr, tt.stderrHas)
			}
		})
	}
}

func TestRepairCommandLongLine(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	code, stdout, _ := runRepairCmd(t, `{"input":"{\"a\":\"`+long+`"}`+"\n", "--jsonl")
	if code != exitOK || !strings.Contains(stdout, long) || !strings.Contains(stdout, `"fixes":["close_string","close_brackets"]`) {
		t.Errorf("exit %d, stdout %.80q…", code, stdout)
	}
}

func TestRepairCommandLineTooLong(t *testing.T) {
	stdin := `{"input":"[1]"}` + "\n" + `{"input":"` + strings.Repeat("x", maxJSONLine) + `"}` + "\n"
	code, stdout, stderr := runRepairCmd(t, stdin, "--jsonl")
	if code != exitUsage || stdout != `{"output":"[1]","fixes":[]}`+"\n" || stderr != "evalrun repair: stdin:2: line longer than 64 MiB\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, the first result, and stdin:2 too long", code, stdout, stderr)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRepairCommandOutputError(t *testing.T) {
	for _, args := range [][]string{nil, {"--jsonl"}} {
		var errb bytes.Buffer
		e := &env{stdin: strings.NewReader(`{"input":"[1,"}`), stdout: failingWriter{}, stderr: &errb}
		code := run(context.Background(), append([]string{"repair"}, args...), e)
		if code != exitUsage || !strings.Contains(errb.String(), "disk full") {
			t.Errorf("repair %q to a failing stdout: exit %d, stderr %q; want exit 2 and the write error", args, code, errb.String())
		}
	}
}
