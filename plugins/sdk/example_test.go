package sdk_test

import (
	"fmt"

	"github.com/btrun/btrun/plugins/sdk"
)

// Example declares a plugin action that walks an agent along x and tests it
// in-process. A real plugin's main is one line: sdk.Serve(walker()).
func Example() {
	walker := &sdk.Plugin{Name: "walker", Actions: []sdk.Action{{
		Name:   "walk.east",
		Reads:  []string{"x"},
		Writes: []string{"x"},
		Run: func(c *sdk.Call) (sdk.Status, error) {
			goal, err := c.Params.Float("walk.to", 10)
			if err != nil {
				return 0, err
			}
			x, _ := c.FieldFloat("x")
			x = min(goal, x+2*c.Dt) // 2 units per second
			if err := c.SetField("x", x); err != nil {
				return 0, err
			}
			if x < goal {
				return sdk.Running, nil
			}
			c.Signal("Arrived")
			return sdk.Success, nil
		},
	}}}

	tt, err := sdk.NewTester(walker)
	if err != nil {
		fmt.Println(err)
		return
	}
	ag := sdk.NewTestAgent("walker-1", map[string]any{"x": 0.0})
	for {
		st, err := tt.Run(ag, "walk.east", map[string]string{"walk.to": "1"}, 0.25)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("t=%.2f x=%.1f %s\n", ag.Time, ag.Fields["x"], st)
		if st != sdk.Running {
			break
		}
	}
	fmt.Println(ag.Effects[0].Name)
	// Output:
	// t=0.25 x=0.5 running
	// t=0.50 x=1.0 success
	// Arrived
}
