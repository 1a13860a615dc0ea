// Command pure is a test plugin whose replies depend only on the call (the
// agent, its time, the rule's parameters): what a [[plugins]] entry may
// mark shardable (game/cluster_plugins_test.go).
package main

import "github.com/btrun/btrun/plugins/sdk"

func main() {
	sdk.Serve(&sdk.Plugin{
		Name: "pure",
		Actions: []sdk.Action{{
			Name: "pure.stamp",
			Run: func(c *sdk.Call) (sdk.Status, error) {
				c.Log("stamp", c.Agent, c.Time)
				return sdk.Success, nil
			},
		}},
	})
}
