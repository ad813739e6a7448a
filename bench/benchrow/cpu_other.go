//go:build !unix

package benchrow

import "time"

// cpuTime is unknown here: zero.
func cpuTime() time.Duration { return 0 }
