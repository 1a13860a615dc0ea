// Package pluginpb is the generated gRPC code of btrun's plugin protocol
// (plugin.proto). Only the adapters in plugins/sdk (grpc_server.go,
// grpc_client.go) use it; plugin authors and the host work with the SDK's
// Go types. Regenerate with gen.sh (pinned protoc-gen-go and
// protoc-gen-go-grpc versions are listed there and in docs/plugins.md).
//
// The generated types are safe for concurrent use as gRPC says: a message
// must not be modified while it is being sent.
package pluginpb
