package natsnet

import (
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server is a NATS server with JetStream inside this process, on the
// loopback at a port the system picks: `btrun run -shards N` starts one.
type Server struct {
	s *server.Server
}

// StartServer starts the embedded server, its JetStream store in store
// holding at most maxStore bytes (0: the server's default, a share of the
// disk).
func StartServer(store string, maxStore int64) (*Server, error) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true,
		StoreDir: store, JetStreamMaxStore: maxStore, NoSigs: true, NoLog: true, DisableJetStreamBanner: true})
	if err != nil {
		return nil, fmt.Errorf("natsnet: embedded server: %w", err)
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("natsnet: embedded server not ready within 10s")
	}
	return &Server{s}, nil
}

// URL is where clients reach it.
func (s *Server) URL() string { return s.s.ClientURL() }

// Close shuts it down.
func (s *Server) Close() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
}
