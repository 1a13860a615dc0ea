//go:build unix

package readfile

import (
	"os"
	"syscall"
)

// openNonBlocking opens with O_NONBLOCK, so that opening a named pipe with
// no writer returns at once instead of waiting for one. Regular files
// ignore the flag.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
