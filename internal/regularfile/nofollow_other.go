//go:build !unix

package regularfile

import (
	"errors"
	"fmt"
	"os"
)

// ReadNoFollow is Read of a path whose last element is not a symbolic
// link. This platform cannot open a file without following a link, so it
// always fails (errors.ErrUnsupported): callers fall back to ReadIn.
func ReadNoFollow(path string, limit int64) ([]byte, error) {
	return nil, fmt.Errorf("reading %s: %w", path, errors.ErrUnsupported)
}

// OpenNoFollow is ReadNoFollow's open: on this platform it always fails
// (errors.ErrUnsupported).
func OpenNoFollow(path string) (*os.File, error) {
	return nil, fmt.Errorf("reading %s: %w", path, errors.ErrUnsupported)
}
