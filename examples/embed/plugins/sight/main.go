// Command sight is the courtyard's plugin: a guard's eyes. Its condition
// sight.sees reads the guard's position and the thief's from the agent's
// fields (the program's own Go values, no copy) and is true within
// sight.range.
package main

import (
	"math"

	"github.com/btrun/btrun/plugins/sdk"
)

func main() { sdk.Serve(plugin()) }

func plugin() *sdk.Plugin {
	return &sdk.Plugin{
		Name: "sight",
		Conditions: []sdk.Condition{{
			Name:  "sight.sees",
			Reads: []string{"x", "y", "thiefX", "thiefY"},
			Doc:   "the thief is within sight.range of the guard",
			Params: []sdk.ParamInfo{{Name: "sight.range", Type: "number", Default: "5",
				Doc: "how far the guard sees"}},
			Test: func(c *sdk.Call) (bool, error) {
				r, err := c.Params.Float("sight.range", 5)
				if err != nil {
					return false, err
				}
				x, _ := c.FieldFloat("x")
				y, _ := c.FieldFloat("y")
				tx, _ := c.FieldFloat("thiefX")
				ty, _ := c.FieldFloat("thiefY")
				return math.Hypot(tx-x, ty-y) <= r, nil
			},
		}},
	}
}
