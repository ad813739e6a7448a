// Command cmdagent is the test agent of bridge's command tests: a program
// tapeloop did not link, speaking the Chat Completions API over HTTP to
// $OPENAI_BASE_URL with two tools on the files of its working directory.
//
//	cmdagent notes   answer the input (the normal agent, its system prompt
//	                 $NOTES_SYSTEM with {cwd} and {home} replaced by its
//	                 working and home directories); in a conversation
//	                 print each answer as {"final": TEXT} and read the next
//	                 user message from stdin until it ends
//	cmdagent plain   answer in plain text even in a conversation
//	cmdagent claude  answer once over the Messages API at $ANTHROPIC_BASE_URL
//	cmdagent hang    block forever without calling the model
//	cmdagent fail [N] print to stderr (first N numbered lines of noise)
//	                 and exit with status 3
//	cmdagent args ARG...  print its arguments and $WHERE on stderr and
//	                 exit with status 3
//	cmdagent environ print the name of each variable of its environment,
//	                 one a line, sorted
//	cmdagent print N [LINE]  print N bytes "x" on stdout (after LINE and a
//	                 newline, in the same write) and exit
//	cmdagent stall   send the model server half a request's headers, then
//	                 print "dropped" once the server closes the connection
//	cmdagent orphan ADDR  start "cmdagent hold ADDR" on its own stdout,
//	                 print "answer" and exit once it has connected
//	cmdagent detach ADDR  start "cmdagent hold ADDR" with its stdout on
//	                 /dev/null, print "answer" and exit once it has connected
//	cmdagent group ADDR   start "cmdagent hold ADDR" on its own stdout and
//	                 block forever
//	cmdagent setsid ADDR [block]  connect to ADDR itself, start
//	                 "cmdagent hold ADDR" in a session of its own with its
//	                 output on /dev/null, and once it has connected print
//	                 "answer" and exit (with block: block forever)
//	cmdagent reach ADDR... dial each HOST:PORT and look up each other
//	                 name, print the errors on stderr, and print "answer"
//	                 if each dial was refused and each lookup failed (else
//	                 exit with status 3)
//	cmdagent write PATH...  write inside.txt in its working directory and
//	                 note.txt in $HOME, then try to write each PATH; print
//	                 "answer" if each was refused for want of permission
//	                 (else exit with status 3)
//	cmdagent hold ADDR    connect to ADDR (a test's listener: a Unix socket's path, or HOST:PORT) and exit when
//	                 the connection ends; that it ended tells the test this
//	                 process died. Started by the modes above, it closes
//	                 file 3 once connected, which they wait for
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func main() {
	mode := "notes"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "hang":
		blockForever()
	case "fail":
		if len(os.Args) > 2 {
			n, err := strconv.Atoi(arg(2))
			if err != nil {
				fail(err)
			}
			for i := 1; i <= n; i++ {
				fmt.Fprintf(os.Stderr, "cmdagent: noise line %d\n", i)
			}
		}
		fmt.Fprintf(os.Stderr, "cmdagent: cannot go on in %s\n", mustGetwd())
		os.Exit(3)
	case "args":
		fmt.Fprintf(os.Stderr, "cmdagent: args %q, WHERE=%s\n", os.Args[2:], os.Getenv("WHERE"))
		os.Exit(3)
	case "env":
		for _, name := range os.Args[2:] {
			v, ok := os.LookupEnv(name)
			fmt.Printf("%s=%q %v\n", name, v, ok)
		}
		return
	case "environ":
		// Every variable's name, one a line, sorted.
		var names []string
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			names = append(names, name)
		}
		sort.Strings(names)
		fmt.Println(strings.Join(names, "\n"))
		return
	case "print":
		n, err := strconv.Atoi(arg(2))
		if err != nil {
			fail(err)
		}
		var out []byte
		if len(os.Args) > 3 {
			out = append([]byte(os.Args[3]), '\n')
		}
		os.Stdout.Write(append(out, bytes.Repeat([]byte("x"), n)...))
		return
	case "stall":
		u, err := url.Parse(os.Getenv("OPENAI_BASE_URL"))
		if err != nil {
			fail(err)
		}
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\n", u.Host)
		_, _ = io.Copy(io.Discard, c) // until the server drops the connection
		fmt.Println("dropped")
		return
	case "orphan", "detach", "group":
		self, err := os.Executable()
		if err != nil {
			fail(err)
		}
		connected, w, err := os.Pipe()
		if err != nil {
			fail(err)
		}
		c := exec.Command(self, "hold", arg(2))
		c.ExtraFiles = []*os.File{w}
		if mode != "detach" {
			c.Stdout = os.Stdout
		}
		if err := c.Start(); err != nil {
			fail(err)
		}
		w.Close()
		_, _ = io.Copy(io.Discard, connected) // until hold closes its file 3
		if mode != "group" {
			fmt.Println("answer")
			os.Exit(0)
		}
		blockForever()
	case "setsid":
		self, err := os.Executable()
		if err != nil {
			fail(err)
		}
		own, err := dial(arg(2))
		if err != nil {
			fail(err)
		}
		defer own.Close()
		connected, w, err := os.Pipe()
		if err != nil {
			fail(err)
		}
		c := exec.Command(self, "hold", arg(2))
		c.ExtraFiles = []*os.File{w}
		c.SysProcAttr = newSession()
		if err := c.Start(); err != nil {
			fail(err)
		}
		w.Close()
		_, _ = io.Copy(io.Discard, connected) // until hold closes its file 3
		if len(os.Args) > 3 && os.Args[3] == "block" {
			blockForever()
		}
		fmt.Println("answer")
		return
	case "reach":
		refused := true
		for _, to := range os.Args[2:] {
			var err error
			if _, _, splitErr := net.SplitHostPort(to); splitErr == nil {
				var c net.Conn
				if c, err = net.DialTimeout("tcp", to, time.Minute); err == nil {
					c.Close()
				}
				refused = refused && errors.Is(err, syscall.ECONNREFUSED)
			} else {
				_, err = net.LookupHost(to)
				refused = refused && err != nil
			}
			fmt.Fprintf(os.Stderr, "cmdagent: reaching %s: %v\n", to, err)
		}
		if !refused {
			os.Exit(3)
		}
		fmt.Println("answer")
		return
	case "write":
		// The workspace and the home take writes; each argument refuses
		// them.
		for _, p := range []string{"inside.txt", filepath.Join(os.Getenv("HOME"), "note.txt")} {
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				fail(err)
			}
		}
		refused := true
		for _, p := range os.Args[2:] {
			err := os.WriteFile(p, []byte("x"), 0o644)
			fmt.Fprintf(os.Stderr, "cmdagent: writing %s: %v\n", p, err)
			refused = refused && errors.Is(err, fs.ErrPermission)
		}
		if !refused {
			os.Exit(3)
		}
		fmt.Println("answer")
		return
	case "hold":
		c, err := dial(arg(2))
		if err != nil {
			fail(err)
		}
		if f := os.NewFile(3, "connected"); f != nil {
			f.Close()
		}
		_, _ = io.Copy(io.Discard, c)
		return
	}
	dec := json.NewDecoder(os.Stdin)
	var in struct {
		Messages     []message `json:"messages"`
		Conversation bool      `json:"conversation"`
	}
	if err := dec.Decode(&in); err != nil {
		fail(err)
	}
	if mode == "plain" {
		in.Conversation = false
	}
	system := "You keep notes in files."
	if s := os.Getenv("NOTES_SYSTEM"); s != "" {
		system = strings.NewReplacer("{cwd}", mustGetwd(), "{home}", os.Getenv("HOME")).Replace(s)
	}
	if mode == "claude" {
		fmt.Println(claudeAnswer(system, in.Messages))
		return
	}
	msgs := append([]message{{Role: "system", Content: system}}, in.Messages...)
	for {
		answer := answer(&msgs)
		if !in.Conversation {
			fmt.Println(answer)
			return
		}
		line, _ := json.Marshal(map[string]string{"final": answer})
		fmt.Println(string(line))
		var next message
		if err := dec.Decode(&next); err == io.EOF {
			return
		} else if err != nil {
			fail(err)
		}
		msgs = append(msgs, next)
	}
}

// answer runs the loop on *msgs until the model answers in text.
func answer(msgs *[]message) string {
	for range 10 {
		m := complete(*msgs)
		*msgs = append(*msgs, m)
		if len(m.ToolCalls) == 0 {
			return m.Content
		}
		for _, c := range m.ToolCalls {
			*msgs = append(*msgs, message{Role: "tool", ToolCallID: c.ID, Content: runTool(c.Function.Name, c.Function.Arguments)})
		}
	}
	fail(fmt.Errorf("too many steps"))
	return ""
}

func complete(msgs []message) message {
	tool := func(name, desc, schema string) any {
		return map[string]any{"type": "function", "function": map[string]any{"name": name, "description": desc, "parameters": json.RawMessage(schema)}}
	}
	body, _ := json.Marshal(map[string]any{"model": "gpt-test", "messages": msgs, "tools": []any{
		tool("read_file", "Read a file.", `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		tool("write_file", "Write a file.", `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`),
	}})
	req, _ := http.NewRequest(http.MethodPost, os.Getenv("OPENAI_BASE_URL")+"/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("OPENAI_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fail(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		fail(fmt.Errorf("model call: HTTP %d: %s", resp.StatusCode, data))
	}
	var out struct {
		Choices []struct {
			Message message `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Choices) == 0 {
		fail(fmt.Errorf("model call: bad answer %s", data))
	}
	return out.Choices[0].Message
}

func runTool(name, args string) string {
	var a struct{ Path, Content string }
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "error: " + err.Error()
	}
	switch name {
	case "read_file":
		b, err := os.ReadFile(a.Path)
		if err != nil {
			return "error: no such file"
		}
		return string(b)
	case "write_file":
		if err := os.WriteFile(a.Path, []byte(a.Content), 0o644); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("wrote %d bytes", len(a.Content))
	}
	return "error: unknown tool " + name
}

// dial connects to addr: a Unix socket's path, or HOST:PORT over TCP.
func dial(addr string) (net.Conn, error) {
	if strings.HasPrefix(addr, "/") {
		return net.Dial("unix", addr)
	}
	return net.Dial("tcp", addr)
}

// blockForever blocks until the process is killed.
func blockForever() {
	r, _, err := os.Pipe()
	if err == nil {
		io.ReadAll(r) // the write end stays open: this never returns
	}
}

// arg is the program's argument i; its absence is a failure.
func arg(i int) string {
	if len(os.Args) <= i {
		fail(fmt.Errorf("%s needs an argument", os.Args[1]))
	}
	return os.Args[i]
}

func mustGetwd() string {
	wd, _ := os.Getwd()
	return wd
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cmdagent:", err)
	os.Exit(1)
}
