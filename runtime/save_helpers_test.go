package runtime

import "math"

func nanWithPayload() float64 { return math.Float64frombits(0x7ff8000000000abc) }
func negZero() float64        { return math.Copysign(0, -1) }
func posInf() float64         { return math.Inf(1) }
func signbit(f float64) bool  { return math.Signbit(f) }
