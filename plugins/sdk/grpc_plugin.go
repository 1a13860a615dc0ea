package sdk

import (
	"context"
	"math"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/btrun/btrun/plugins/proto"
)

// GRPCPlugin is btrun's go-plugin plugin: gRPC only (net/rpc is refused).
// On the plugin side Impl serves the calls; on the host side Impl is nil and
// Dispense returns a Service that talks to the plugin.
type GRPCPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	Impl Service
}

// GRPCServer registers the server adapter.
func (p *GRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterPluginServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the client adapter, a Service.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewPluginClient(c)}, nil
}

// grpcServerOptions lift gRPC's 4 MiB default on received messages: a
// batch of many thousand calls is one message.
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	return grpc.NewServer(append(opts, grpc.MaxRecvMsgSize(math.MaxInt32), grpc.MaxSendMsgSize(math.MaxInt32))...)
}
