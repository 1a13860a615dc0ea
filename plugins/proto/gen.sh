#!/bin/sh
# Regenerates plugin.pb.go and plugin_grpc.pb.go from plugin.proto.
# The generated files are committed: no build or test needs protoc.
#
# Pinned versions:
#   protoc              3.21.12 (Debian: apt-get install -y protobuf-compiler)
#   protoc-gen-go       v1.36.6 (google.golang.org/protobuf, as go.mod)
#   protoc-gen-go-grpc  v1.3.0  (its code needs grpc >= 1.52 and works with
#                                the grpc v1.61 that go-plugin v1.8 requires;
#                                v1.4+ needs grpc >= 1.62)
set -eu
cd "$(dirname "$0")"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
GOBIN="$bin" go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.6
GOBIN="$bin" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.3.0
PATH="$bin:$PATH" protoc --proto_path=. \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  plugin.proto
