package bridge

// The command's limits, which tests lower (see setDuration in
// command_limits_test.go).
var (
	CommandReadHeaderTimeout = &commandReadHeaderTimeout
	CommandWaitDelay         = &commandWaitDelay
)

// OpenSandbox opens a command's sandbox; a test replaces it (see
// withoutNamespaces in command_sandbox_linux_test.go).
var OpenSandbox = &openSandbox
