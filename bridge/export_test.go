package bridge

// The command's limits, which tests lower (see setDuration in
// command_limits_test.go).
var (
	CommandReadHeaderTimeout = &commandReadHeaderTimeout
	CommandWaitDelay         = &commandWaitDelay
)
