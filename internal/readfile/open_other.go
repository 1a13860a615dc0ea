//go:build !unix

package readfile

import "os"

// openNonBlocking checks the path before opening it where the system has no
// non-blocking open (a pipe can be swapped in between, which Read's check on
// the open file still catches for everything but the open itself).
func openNonBlocking(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := CheckRegular(path, fi, "file"); err != nil {
		return nil, err
	}
	return os.Open(path)
}
