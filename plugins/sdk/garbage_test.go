package sdk

import (
	"context"
	"fmt"
	"math"
	"net"
	"path/filepath"
	goruntime "runtime"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	pb "github.com/btrun/btrun/plugins/proto"
)

// TestGRPC_littleGarbagePerBatchedCall: batches sent through the SDK's
// client to its server (both in this process, over a Unix socket) leave
// little garbage once their storage has grown. The server receives each
// batch into a pooled buffer (runBatchStream): served as a unary method,
// gRPC made a fresh one for every batch, about 45 bytes a call of this
// batch, and the plugin's collections took CPU its calls needed.
func TestGRPC_littleGarbagePerBatchedCall(t *testing.T) {
	if raceOn {
		t.Skip("counts allocations, which the race detector adds to; the run without -race counts them")
	}
	d, err := newDispatcher(&Plugin{Name: "bench", Actions: []Action{{Name: "bench.move", Reads: []string{"x"}, Writes: []string{"x"},
		Run: func(c *Call) (Status, error) {
			x, _ := c.FieldFloat("x")
			return Success, c.SetField("x", x+1)
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	srv := newGRPCServer(nil)
	registerServer(srv, &grpcServer{impl: d})
	go srv.Serve(ln)
	defer srv.Stop()
	conn, err := grpc.Dial("unix://"+ln.Addr().String(), append(DialOptions(), grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := &grpcClient{client: pb.NewPluginClient(conn), conn: conn}

	const n, rounds = 4000, 10
	b := &Batch{Sites: []Site{{Name: "bench.move", Rule: "root"}}}
	for i := range n {
		b.Calls = append(b.Calls, Request{Kind: KindAction, Agent: fmt.Sprintf("agent-%d", i+1), Time: 1, Dt: 0.1,
			Fields: []Value{{Kind: ValueNumber, Num: float64(i)}}})
	}
	out := make([]Reply, n)
	round := func() {
		var err error
		if out, err = client.RunBatch(context.Background(), b, out); err != nil || len(out) != n || out[7].Writes[0].Num != 8 {
			t.Fatalf("%v: %d replies", err, len(out))
		}
	}
	for range 5 { // the storage grows to its size
		round()
	}
	// The least of several windows: the scheduler's and the collector's
	// own work on a busy machine only ever adds to a window.
	perCall := math.Inf(1)
	for range 4 {
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		for range rounds {
			round()
		}
		goruntime.ReadMemStats(&after)
		perCall = min(perCall, float64(after.TotalAlloc-before.TotalAlloc)/(n*rounds))
	}
	t.Logf("%.1f bytes allocated per call (host and plugin)", perCall)
	if perCall > 32 {
		t.Errorf("%.1f bytes allocated per call, want at most 32", perCall)
	}
}
