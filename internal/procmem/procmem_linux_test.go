package procmem

import "testing"

func TestParseHWM(t *testing.T) {
	for _, c := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"Name:\tbtrun\nVmPeak:\t  999 kB\nVmHWM:\t   2048 kB\nVmRSS:\t 1 kB\n", 2048 * 1024, true},
		{"Name:\tbtrun\n", 0, false},
		{"VmHWM:\t12 MB\n", 0, false},
		{"VmHWM:\tx kB\n", 0, false},
	} {
		got, ok := parseHWM([]byte(c.in))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d %v, want %d %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestPeak_self: this process's peak is read, and is at least what it
// holds now.
func TestPeak_self(t *testing.T) {
	b := make([]byte, 8<<20)
	for i := range b {
		b[i] = 1
	}
	p, ok := Peak(0)
	if !ok || p < uint64(len(b)) {
		t.Errorf("Peak(0) = %d, %v: want at least %d", p, ok, len(b))
	}
}
