//go:build !unix

package tempfile

// alive cannot tell on this system: every writer counts as alive, so
// nothing is removed.
func alive(pid int) bool { return true }
