package bridge

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
)

// CommandAnswer is one line a setup.agent.command prints on stdout in a
// conversation (CommandInput.Conversation): {"final": TEXT}, its answer to
// the user's last message.
type CommandAnswer struct {
	// Final is the answer's text; a line without it is an error.
	Final *string `json:"final"`
}

// converse runs cmd, started with start, as a conversation: it writes the input line, then
// reads the command's stdout line by line, each an answer
// ({"final": TEXT}, reported with r.Final); after each it writes the
// user's next message as a line ({"role": "user", "content": TEXT}), or
// closes stdin when the conversation is over, and the command exits.
// waitErr is how the command ended; talkErr a line that is not an answer
// (the command is then killed). A message the command does not read (it
// exited) is not an error here: the turns left unused fail the run.
func converse(ctx context.Context, cmd *exec.Cmd, start func(*exec.Cmd) error, r *Run, in []byte) (waitErr, talkErr error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err, nil
	}
	// stdout is read through a pipe of ours while the command is waited
	// for, so its end is the command's exit (and cmd.WaitDelay for what
	// holds it after that), not the exit of every process holding it.
	stdout, w := io.Pipe()
	cmd.Stdout = w
	if err := start(cmd); err != nil {
		return err, nil
	}
	waited := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		w.Close()
		waited <- err
	}()
	_, _ = stdin.Write(append(in, '\n'))
	talkErr = talk(ctx, stdin, stdout, r)
	stdin.Close()
	stdout.Close() // what the command still prints is not read
	if talkErr != nil && cmd.Cancel != nil {
		_ = cmd.Cancel()
	}
	return <-waited, talkErr
}

// talk reads the answers on out and writes the user's messages to in until
// out ends or a line is not an answer.
func talk(ctx context.Context, in io.WriteCloser, out io.Reader, r *Run) error {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), MaxCommandOutput)
	open := true
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var a CommandAnswer
		if err := json.Unmarshal(line, &a); err != nil || a.Final == nil {
			return fmt.Errorf(`stdout line %d is not an answer {"final": TEXT} (the scenario is a conversation: see docs/bridge.md): %s`, n, strconv.Quote(clip(string(line), 200)))
		}
		r.Final(*a.Final)
		if !open {
			continue
		}
		next, ok := r.NextUser(ctx)
		if !ok {
			in.Close()
			open = false
			continue
		}
		b, err := json.Marshal(CommandMessage{Role: string(next.Role), Content: next.Content})
		if err != nil {
			return err
		}
		_, _ = in.Write(append(b, '\n'))
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("it printed a line of more than %d bytes on stdout", MaxCommandOutput)
	} else if err != nil {
		return fmt.Errorf("reading its stdout: %w", err)
	}
	return nil
}

// clip cuts s to at most n bytes, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
