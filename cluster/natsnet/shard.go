package natsnet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// ShardLink is a shard's end over NATS (a cluster.ShardLink).
type ShardLink struct {
	o      Options
	nc     *nats.Conn
	k      int
	down   chan *nats.Msg
	bye    chan *nats.Msg
	closed chan struct{}
	parts  parts
	seq    cluster.Sequence
	check  cluster.Sequence
	files  []File
	config string // the config's path among files
	n      int    // the run's shards
	link   string // the link's id among the run's (link_epoch.go)
}

// Join connects to NATS and joins run o.Run as a shard, trying until the
// conductor takes it or o.JoinTimeout passes. A conductor of another
// version refuses it (ErrVersion, naming both).
func Join(o Options) (*ShardLink, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	nc, err := connect(&o, "shard")
	if err != nil {
		return nil, err
	}
	s := &ShardLink{o: o, nc: nc, down: make(chan *nats.Msg, 2*chanRoom), bye: make(chan *nats.Msg, 16), closed: make(chan struct{})}
	nc.SetClosedHandler(func(*nats.Conn) { close(s.closed) })
	id := nuid.Next()
	_, err = nc.ChanSubscribe(o.subject("down", id), s.down)
	if err == nil {
		_, err = nc.ChanSubscribe(o.subject("bye"), s.bye)
	}
	if err == nil {
		err = nc.Flush() // subscribed before the conductor can send
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsnet: shard: %w", err)
	}
	name := o.Name
	if name == "" {
		if ip, err := nc.GetClientIP(); err == nil {
			name = ip.String()
		}
		name += " client " + strconv.FormatUint(mustID(nc), 10)
	}
	manifest := ""
	if s.k, manifest, err = s.join(id, name); err != nil {
		nc.Close()
		return nil, err
	}
	if s.files, s.config, err = fetchFiles(nc, o.Run, manifest); err != nil {
		nc.Close()
		return nil, err
	}
	return s, nil
}

func mustID(nc *nats.Conn) uint64 {
	id, _ := nc.GetClientID()
	return id
}

// join asks the conductor to take the shard: its number and the hash of
// the game's files' manifest.
func (s *ShardLink) join(id, name string) (int, string, error) {
	deadline := time.Now().Add(s.o.JoinTimeout)
	req := []byte(s.o.Version + "\n" + id + "\n" + name)
	for {
		m, err := s.nc.Request(s.o.subject("join"), req, time.Second)
		if err == nil {
			reply := string(m.Data)
			if rest, ok := strings.CutPrefix(reply, "ok "); ok {
				f := strings.Fields(rest)
				var k, n int
				var err1, err2 error
				if len(f) == 4 {
					k, err1 = strconv.Atoi(f[0])
					n, err2 = strconv.Atoi(f[1])
				}
				if len(f) != 4 || err1 != nil || err2 != nil || k < 0 || k >= n {
					return 0, "", fmt.Errorf("natsnet: shard: the conductor of run %s answered %q", s.o.Run, reply)
				}
				s.n, s.link = n, f[3]
				return k, f[2], nil
			}
			if why, ok := strings.CutPrefix(reply, "refused: version: "); ok {
				return 0, "", fmt.Errorf("%w: %s", ErrVersion, why)
			}
			return 0, "", fmt.Errorf("natsnet: shard: the conductor of run %s %s", s.o.Run, reply)
		}
		if !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, nats.ErrTimeout) {
			return 0, "", fmt.Errorf("natsnet: shard: joining run %s: %w", s.o.Run, err)
		}
		if time.Now().After(deadline) {
			return 0, "", fmt.Errorf("%w: no conductor of run %s on %s took this shard within %s", ErrMissing, s.o.Run, s.o.URL, s.o.JoinTimeout)
		}
		time.Sleep(100 * time.Millisecond) // the conductor is not there yet
	}
}

// Files are the game's files, fetched from the run's object store as the
// shard joined, every hash checked.
func (s *ShardLink) Files() []File { return s.files }

// Config is the path among Files of the game's config ("" when the
// conductor named none: Options.Config).
func (s *ShardLink) Config() string { return s.config }

// Shards is the number of the run's shards.
func (s *ShardLink) Shards() int { return s.n }

// K is the shard's number in the run.
func (s *ShardLink) K() int { return s.k }

func (s *ShardLink) Recv() (cluster.Message, error) {
	for {
		select {
		case m := <-s.down:
			b, whole, err := s.parts.add(m)
			if err != nil {
				return cluster.Message{}, err
			}
			if !whole {
				continue
			}
			r, err := cluster.Decode(b)
			if err == nil {
				err = s.check.Check(&r, "the conductor")
			}
			return r, err
		case m := <-s.bye:
			if s.o.staleBye(m, s.link) {
				continue
			}
			return cluster.Message{}, cluster.ErrClosed
		case <-s.closed:
			return cluster.Message{}, fmt.Errorf("natsnet: shard %d: the connection to NATS closed: %w", s.k, cluster.ErrClosed)
		}
	}
}

func (s *ShardLink) Reply(m *cluster.Message) error {
	m.Reply = true
	m.Seq = s.seq.Next()
	if err := publish(s.nc, upSubject(&s.o, s.link, s.k), m.Append(nil)); err != nil {
		return fmt.Errorf("natsnet: shard %d: %w", s.k, err)
	}
	return nil
}

func (s *ShardLink) Close() error {
	s.nc.Close()
	return nil
}
