// Command nav is btrun's example plugin: grid path finding for the example
// game's 40 x 30 arena. See README.md.
package main

import "github.com/btrun/btrun/plugins/sdk"

func main() { sdk.Serve(Plugin()) }
