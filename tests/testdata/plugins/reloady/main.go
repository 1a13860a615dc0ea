// Command reloady is the test plugin of the hot reload's end-to-end test
// (tests/watch_test.go): the test copies it into a module of its own, runs
// a game with it under `btrun run -watch`, and edits version while the
// game runs. Its action counts its calls in the rule's state bytes, so the
// test sees the new build go on from the old one's state.
package main

import (
	"strconv"

	"github.com/btrun/btrun/plugins/sdk"
)

const version = 1

func main() {
	sdk.Serve(&sdk.Plugin{
		Name: "reloady",
		Actions: []sdk.Action{{
			Name: "reloady.work",
			Run: func(c *sdk.Call) (sdk.Status, error) {
				n, _ := strconv.Atoi(string(c.State()))
				n++
				c.SetState([]byte(strconv.Itoa(n)))
				c.Log("version", version, "call", n)
				return sdk.Running, nil
			},
		}},
	})
}
