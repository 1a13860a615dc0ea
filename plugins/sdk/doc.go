// Package sdk is everything a btrun plugin author imports: declare actions
// (with optional start and cancel hooks), conditions and scorers (numbers
// that order a score choice's children) by name, read typed
// parameters and agent fields, return a result with state bytes and effects
// (signals, variables, timestamps, log lines, a jump), and serve it all
// with one line of main:
//
//	func main() { sdk.Serve(myplugin.Plugin()) }
//
// A plugin is an executable that btrun starts and talks to over
// hashicorp/go-plugin with gRPC (protocol version ProtocolVersion; the
// handshake is Handshake). Plugins are stateless between calls: all agent
// state lives in the runtime and is saved with the agent; an action keeps
// what it needs between calls in its state bytes (Call.State/SetState).
//
// # Testing a plugin
//
// Tester runs a Plugin in-process through the same dispatch code the gRPC
// server uses, against TestAgents that keep fields, state bytes and effects
// the way the runtime does. No process, no network.
//
// # The wire
//
// interface.go is the contract shared with the host (go-plugin's
// examples/grpc/shared shape): Handshake, the versioned plugin set
// (PluginSets), the Service interface and its Go types. grpc_server.go and
// grpc_client.go are the only files that touch protobuf types.
//
// # Concurrency
//
// Action and condition functions are called concurrently: gRPC serves calls
// on several goroutines, and a batch that is large, or whose calls take
// long enough, is split across GOMAXPROCS goroutines. They must not keep per-agent state outside the Call. A Call
// belongs to the goroutine running it and is valid only during the call.
// Tester is safe for concurrent use; a TestAgent is not.
//
// # Standard output
//
// Nothing may be written to standard output before Serve: go-plugin's
// handshake is the first line the host reads there, and the host reports a
// plugin that prints first as broken. Use Logf (or standard error).
//
// # The host's death
//
// go-plugin does not stop a plugin whose host died without closing it
// (SIGKILL, a crash). Serve watches a lifeline pipe from the host
// (LifelineEnv) and the parent pid, and exits within a second when the host
// is gone.
package sdk
