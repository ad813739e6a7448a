package tools

import (
	"errors"
	"fmt"
)

// Effect is one change a tool made to the world: exactly one of File or Process
// is set. Effects are data: the diff recorder turns file effects into per-turn
// diffs, and goldens keep them. A tool that changes nothing returns no effect.
//
// In YAML and JSON an effect is a one-key mapping that names its variant:
//
//   - file: {op: modify, path: notes.txt, bytes: 12}
//   - process: {command: go test ./..., exit_code: 1}
type Effect struct {
	File    *FileEffect    `json:"file,omitempty" yaml:"file,omitempty"`
	Process *ProcessEffect `json:"process,omitempty" yaml:"process,omitempty"`
}

// FileOp is what happened to a file.
type FileOp string

// The file operations.
const (
	OpCreate FileOp = "create"
	OpModify FileOp = "modify"
	OpAppend FileOp = "append"
	OpDelete FileOp = "delete"
	OpRename FileOp = "rename"
)

// FileEffect records a change to a file of the workspace. Path is
// workspace-relative with forward slashes; From is set only for renames (the old
// path). Bytes is the file's size after the change (0 after a delete).
type FileEffect struct {
	Op    FileOp `json:"op" yaml:"op"`
	Path  string `json:"path" yaml:"path"`
	From  string `json:"from,omitempty" yaml:"from,omitempty"`
	Bytes int64  `json:"bytes" yaml:"bytes"`
}

// ProcessEffect records a process a tool ran.
type ProcessEffect struct {
	Command    string `json:"command" yaml:"command"`
	ExitCode   int    `json:"exit_code" yaml:"exit_code"`
	Background bool   `json:"background,omitempty" yaml:"background,omitempty"`
	TimedOut   bool   `json:"timed_out,omitempty" yaml:"timed_out,omitempty"`
}

// ErrInvalidEffect is wrapped by every error of Effect.Validate.
var ErrInvalidEffect = errors.New("invalid effect")

// FileChange returns a file effect.
func FileChange(op FileOp, path string, bytes int64) Effect {
	return Effect{File: &FileEffect{Op: op, Path: path, Bytes: bytes}}
}

// FileRename returns the effect of renaming from to to.
func FileRename(from, to string, bytes int64) Effect {
	return Effect{File: &FileEffect{Op: OpRename, Path: to, From: from, Bytes: bytes}}
}

// ProcessRun returns a process effect.
func ProcessRun(command string, exitCode int) Effect {
	return Effect{Process: &ProcessEffect{Command: command, ExitCode: exitCode}}
}

// Validate reports whether e is well formed: exactly one variant, a known op, a
// path, and a from-path exactly for renames.
func (e Effect) Validate() error {
	switch {
	case e.File != nil && e.Process != nil:
		return fmt.Errorf("%w: both file and process are set", ErrInvalidEffect)
	case e.File != nil:
		f := e.File
		switch f.Op {
		case OpCreate, OpModify, OpAppend, OpDelete, OpRename:
		default:
			return fmt.Errorf("%w: unknown file op %q (want create, modify, append, delete or rename)", ErrInvalidEffect, f.Op)
		}
		if f.Path == "" {
			return fmt.Errorf("%w: file effect %s has no path", ErrInvalidEffect, f.Op)
		}
		if (f.Op == OpRename) != (f.From != "") {
			return fmt.Errorf("%w: file effect %s %s: from is required for rename and only for rename", ErrInvalidEffect, f.Op, f.Path)
		}
		if f.Bytes < 0 {
			return fmt.Errorf("%w: file effect %s %s: negative bytes", ErrInvalidEffect, f.Op, f.Path)
		}
	case e.Process != nil:
		if e.Process.Command == "" {
			return fmt.Errorf("%w: process effect has no command", ErrInvalidEffect)
		}
	default:
		return fmt.Errorf("%w: neither file nor process is set", ErrInvalidEffect)
	}
	return nil
}

// ChangesWorkspace reports whether any of the effects changed a file.
func ChangesWorkspace(effects []Effect) bool {
	for _, e := range effects {
		if e.File != nil {
			return true
		}
	}
	return false
}
