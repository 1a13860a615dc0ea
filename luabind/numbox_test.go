package luabind

import (
	"math"
	"testing"

	lua "github.com/yuin/gopher-lua"
)

func TestNumbers_boxKeepsValues(t *testing.T) {
	var n numbers
	vals := []float64{0, 1, 255, 256, -1, 0.5, math.Pi, -0.0, math.Inf(1), 1e300}
	boxed := make([]lua.LValue, 0, 1000)
	for i := 0; i < 1000; i++ {
		boxed = append(boxed, n.box(vals[i%len(vals)]+float64(i/len(vals))*0))
	}
	for i, b := range boxed {
		want := vals[i%len(vals)]
		got, ok := b.(lua.LNumber)
		if !ok || float64(got) != want || math.Signbit(float64(got)) != math.Signbit(want) {
			t.Fatalf("box %d: got %v (%T), want %v", i, b, b, want)
		}
	}
}

func TestNumbers_boxAllocatesOncePerSlab(t *testing.T) {
	var n numbers
	x := 0.5
	allocs := testing.AllocsPerRun(10000, func() {
		x += 1
		_ = n.box(x)
	})
	if allocs > 0.01 {
		t.Errorf("box allocates %v times per value, want about 1/%d", allocs, slabSize)
	}
}
