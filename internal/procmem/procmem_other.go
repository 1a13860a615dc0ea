//go:build !linux

package procmem

func peak(int) (uint64, bool) { return 0, false }
