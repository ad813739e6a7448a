//go:build !unix

package main

import "syscall"

// newSession leaves a process in its parent's session off Unix.
func newSession() *syscall.SysProcAttr { return nil }
