package sdk

import (
	"context"
	"math"
	goruntime "runtime"

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
	registerServer(s, &grpcServer{impl: p.Impl})
	return nil
}

// GRPCClient returns the client adapter, a Service.
func (p *GRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &grpcClient{client: pb.NewPluginClient(c), conn: c}, nil
}

// windowSize is the HTTP/2 flow-control window of both ends: a batch is
// one message of up to several MiB, and over a local socket a large fixed
// window costs nothing. (At 10,000 calls, a few hundred KiB, gRPC's default
// measured the same.)
const windowSize = 16 << 20

// newGRPCServer is the plugin's gRPC server: large flow-control windows,
// no 4 MiB limit on received messages (a batch is one message), and the
// hand-written codec for batches (wire.go).
func newGRPCServer(opts []grpc.ServerOption) *grpc.Server {
	s := grpc.NewServer(append(opts,
		grpc.MaxRecvMsgSize(math.MaxInt32), grpc.MaxSendMsgSize(math.MaxInt32),
		grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize),
		grpc.ReadBufferSize(256<<10), grpc.WriteBufferSize(256<<10),
		grpc.ForceServerCodec(wireCodec{}),
		// Batches' chunks are received into pooled buffers (runBatchStream).
		grpc.RecvBufferPool(grpc.NewSharedBufferPool()), //nolint:staticcheck // the option of grpc-go 1.61
		// Calls are served by goroutines kept from call to call, whose
		// stacks have grown to what a batch needs: a goroutine per call
		// grew its stack anew each time.
		grpc.NumStreamWorkers(uint32(goruntime.GOMAXPROCS(0))))...)
	wireServers.Store(s, true)
	return s
}

// DialOptions are the host's gRPC options to match the plugin's server
// (go-plugin's ClientConfig.GRPCDialOptions). Received messages go into
// pooled buffers: a batch's replies (about 20 bytes a call) were a fresh
// buffer each round, the host's largest garbage after the rounds' lists.
// The codec copies what it keeps out of them (wire.go), so gRPC may reuse
// them once a reply is decoded.
func DialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithInitialWindowSize(windowSize), grpc.WithInitialConnWindowSize(windowSize),
		grpc.WithReadBufferSize(256 << 10), grpc.WithWriteBufferSize(256 << 10),
		grpc.WithRecvBufferPool(grpc.NewSharedBufferPool()),
	}
}
