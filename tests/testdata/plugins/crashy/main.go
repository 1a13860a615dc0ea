// Command crashy is a test plugin of the end-to-end tests: its process
// exits in the middle of a call at the agent times its rule names, and it
// sends signals and logs on behalf of agents.
package main

import (
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/btrun/btrun/plugins/sdk"
)

func main() {
	sdk.Serve(&sdk.Plugin{
		Name: "crashy",
		Actions: []sdk.Action{{
			Name: "crashy.work",
			// The process exits (status 3) during a call whose agent time is
			// one of crashy.crashAt (seconds, comma-separated): every call of
			// that round fails, and a restarted plugin serves the next ones.
			Run: func(c *sdk.Call) (sdk.Status, error) {
				for _, f := range strings.Split(c.Params.String("crashy.crashAt", ""), ",") {
					if at, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err == nil && math.Abs(c.Time-at) < 1e-9 {
						os.Exit(3)
					}
				}
				return sdk.Success, nil
			},
		}, {
			Name: "crashy.ping",
			// Signals the agent itself and another agent, and logs.
			Run: func(c *sdk.Call) (sdk.Status, error) {
				c.Signal("Pinged")
				if to := c.Params.String("crashy.to", ""); to != "" {
					c.Send(to, "Poked")
				}
				c.Log("pinged at", c.Time, "first run:", c.FirstRun)
				return sdk.Success, nil
			},
		}},
	})
}
