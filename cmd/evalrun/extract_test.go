package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runExtractCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), append([]string{"extract"}, args...), &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func TestExtractCommand(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{
			name:   "hermes",
			args:   []string{"--tools", "get_time,add"},
			stdin:  "Checking.\n<tool_call>{\"name\": \"get_time\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>\n",
			stdout: `{"calls":[{"name":"get_time","arguments":{"city":"Paris"}}],"content":"Checking.","envelope":"hermes"}` + "\n",
		},
		{
			name:   "no call gives empty list",
			args:   []string{"--tools", "get_time"},
			stdin:  "Just prose.",
			stdout: `{"calls":[],"content":"Just prose.","envelope":""}` + "\n",
		},
		{
			name:   "not offered",
			stdin:  `<tool_call>{"name": "get_time", "arguments": {}}</tool_call>`,
			stdout: `{"calls":[],"content":"<tool_call>{\"name\": \"get_time\", \"arguments\": {}}</tool_call>","envelope":""}` + "\n",
		},
		{
			name:  "jsonl in order",
			args:  []string{"--jsonl", "--tools", "add"},
			stdin: `{"text": "[TOOL_CALLS]get_time[ARGS]{\"city\": \"Rome\"}", "tools": ["get_time"]}` + "\n\n" + `{"text": "<|tool_call_start|>[add(a=1)]<|tool_call_end|>"}` + "\n",
			stdout: `{"calls":[{"name":"get_time","arguments":{"city":"Rome"}}],"content":"","envelope":"mistral"}` + "\n" +
				`{"calls":[{"name":"add","arguments":{"a":1}}],"content":"","envelope":"pythonic"}` + "\n",
		},
		{
			name:   "jsonl malformed line",
			args:   []string{"--jsonl"},
			stdin:  `{"text": "hi", "tools": []}` + "\n" + `{"text": ` + "\n",
			code:   exitUsage,
			stdout: `{"calls":[],"content":"hi","envelope":""}` + "\n",
			stderr: "evalrun extract: stdin:2: unexpected end of JSON input\n",
		},
		{
			name:   "jsonl missing text",
			args:   []string{"--jsonl"},
			stdin:  `{"tools": []}` + "\n",
			code:   exitUsage,
			stderr: "evalrun extract: stdin:1: missing \"text\"\n",
		},
		{
			name:   "family hint",
			args:   []string{"--tools", "get_time", "--family", "fenced_json"},
			stdin:  "```json\n{\"name\": \"get_time\", \"arguments\": {}}\n```",
			stdout: `{"calls":[{"name":"get_time","arguments":{}}],"content":"","envelope":"fenced_json"}` + "\n",
		},
		{
			name:  "unknown flag",
			args:  []string{"--bogus"},
			code:  exitUsage,
			stdin: "",
		},
		{
			name:   "stray argument",
			args:   []string{"file.txt"},
			code:   exitUsage,
			stderr: "evalrun extract: unexpected argument \"file.txt\"\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runExtractCmd(t, tc.stdin, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if stdout != tc.stdout {
				t.Errorf("stdout:\n%s\nwant:\n%s", stdout, tc.stdout)
			}
			if tc.stderr != "" && stderr != tc.stderr {
				t.Errorf("stderr %q, want %q", stderr, tc.stderr)
			}
		})
	}
}
