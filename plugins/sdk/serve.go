package sdk

import (
	"fmt"
	"os"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
)

// Serve serves the plugin over go-plugin with gRPC and returns when the
// host ends the connection. Call it as the only statement of main:
//
//	func main() { sdk.Serve(nav.Plugin()) }
//
// Nothing may be written to standard output before Serve: go-plugin's
// handshake is the first line the host reads there. (After Serve, standard
// output and error are forwarded to the host's log.) Serve also watches the
// host: when the host process dies, even by SIGKILL, the plugin exits
// within a second.
//
// A plugin declaration that is invalid (a duplicate name, a missing Run) is
// reported on standard error and the process exits with status 1.
func Serve(p *Plugin) {
	d, err := newDispatcher(p)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ServeService(d, p.Name)
}

// ServeService serves any Service implementation. Plugin authors use Serve;
// this exists for tests and for hosts of their own.
func ServeService(impl Service, name string) {
	if os.Getenv(Handshake.MagicCookieKey) != Handshake.MagicCookieValue {
		fmt.Fprintf(os.Stderr, "This program is a btrun plugin%s: btrun starts it when a config lists it under [[plugins]].\n"+
			"It is not meant to be run by hand.\n", nameSuffix(name))
		os.Exit(1)
	}
	l := hclog.New(&hclog.LoggerOptions{Name: name, Level: hclog.Info, Output: os.Stderr, JSONFormat: true})
	setLogger(l)
	watchHost()
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  Handshake,
		VersionedPlugins: PluginSets(impl),
		GRPCServer:       newGRPCServer,
		Logger:           l,
	})
}

func nameSuffix(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}
