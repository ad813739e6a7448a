//go:build unix

package main

import "syscall"

// newSession starts a process in a session of its own, as setsid does.
func newSession() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
