package game

import (
	"strconv"

	"github.com/btrun/btrun/runtime"
)

// appendWhys writes a step's reasons as the trace key "why" (TraceLines
// documents each kind of entry); nothing when there are none.
func appendWhys(b []byte, rules []runtime.Rule, whys []runtime.Why) []byte {
	if len(whys) == 0 {
		return b
	}
	b = append(b, `,"why":[`...)
	for i, w := range whys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"rule":`...)
		b = appendString(b, rules[w.Rule].Label)
		switch w.Kind {
		case runtime.WhyCondition:
			b = append(b, `,"condition":`...)
			b = appendString(b, w.Name)
			b = append(b, `,"result":`...)
			b = strconv.AppendBool(b, w.Result)
			b = append(b, `,"read":`...)
			b = appendString(b, w.Read)
		case runtime.WhyScore, runtime.WhyWeight:
			b = append(b, `,"child":`...)
			b = appendString(b, rules[w.Child].Label)
			b = append(b, ',', '"')
			b = append(b, w.Kind.String()...)
			b = append(b, '"', ':')
			b = strconv.AppendFloat(b, w.Value, 'g', -1, 64)
		case runtime.WhyOrder:
			b = append(b, `,"order":[`...)
			for k, c := range w.Order {
				if k > 0 {
					b = append(b, ',')
				}
				b = appendString(b, rules[c].Label)
			}
			b = append(b, ']')
		case runtime.WhyRefused:
			b = append(b, `,"refused":`...)
			b = appendString(b, w.Name)
			b = append(b, `,"read":`...)
			b = appendString(b, w.Read)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}
