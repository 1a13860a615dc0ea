package natsnet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
)

// Options say which run on which server.
type Options struct {
	// URL is the NATS server or cluster (nats://host:port[,...]).
	URL string
	// Run names the run: its subjects are btrun.Run.*. Letters, digits,
	// '-' and '_'.
	Run string
	// Version is this btrun's version: the conductor refuses a shard of
	// another, naming both.
	Version string
	// JoinTimeout is how long the conductor waits for its shards to join,
	// and a shard for the conductor to take it (default 30s).
	JoinTimeout time.Duration
	// ReplyTimeout is how long the conductor waits for a shard's reply to
	// one message before it names the shard as missing (default 60s).
	ReplyTimeout time.Duration
	// Gone, when set, tells the conductor that a shard process ended (its
	// number among the processes started, which need not be its shard
	// number): a Gather then ends at once, naming the shards it waited
	// for, rather than after ReplyTimeout.
	Gone <-chan int
	// Files are the game's files, which the conductor publishes and every
	// shard fetches as it joins (ShardLink.Files).
	Files []File
	// Config is the path among Files of the game's config, which the
	// shards open (ShardLink.Config); "" names none.
	Config string
	// Name tells the shard apart in the conductor's messages (a host name
	// and process id, say); "" is the NATS client's address.
	Name string
	// Stale, when set, is told of each message of another link of the
	// same run that this end ignored (a shard of an ended link that woke
	// up, say; link_epoch.go).
	Stale func(msg string)
}

var (
	// ErrVersion is a shard of another btrun version than the conductor's.
	ErrVersion = errors.New("natsnet: another btrun version")
	// ErrMissing is shards that did not join or did not reply in time.
	ErrMissing = errors.New("natsnet: shards missing")
	// ErrRunName is a run name that cannot be part of a NATS subject.
	ErrRunName = errors.New("natsnet: bad run name")
	// ErrTooLarge is a message beyond MaxMessage bytes.
	ErrTooLarge = errors.New("natsnet: message too large")
)

// chanRoom is room for one whole message in parts per sender: a channel
// subscription drops what does not fit (and the sequence check then ends
// the run), so the room must hold the parts a sender can have in flight.
const chanRoom = MaxMessage/(512<<10) + 16

// MaxMessage bounds one protocol message, in parts or not: a receiver
// never holds more for one message.
const MaxMessage = 256 << 20

func (o *Options) defaults() error {
	if o.Run == "" || strings.IndexFunc(o.Run, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) >= 0 {
		return fmt.Errorf("%w %q: use letters, digits, '-' and '_'", ErrRunName, o.Run)
	}
	if o.JoinTimeout <= 0 {
		o.JoinTimeout = 30 * time.Second
	}
	if o.ReplyTimeout <= 0 {
		o.ReplyTimeout = 60 * time.Second
	}
	return nil
}

func (o *Options) subject(parts ...string) string {
	return "btrun." + o.Run + "." + strings.Join(parts, ".")
}

func connect(o *Options, role string) (*nats.Conn, error) {
	name := o.Name
	if name == "" {
		name = "btrun " + role
	}
	nc, err := nats.Connect(o.URL, nats.Name(name), nats.Timeout(5*time.Second), nats.RetryOnFailedConnect(false))
	if err != nil {
		return nil, fmt.Errorf("natsnet: %s cannot reach NATS at %s: %w", role, o.URL, err)
	}
	return nc, nil
}

// Headers of a message in parts.
const (
	hdrPart  = "Btrun-Part"  // "i/n", 1-based
	hdrShard = "Btrun-Shard" // the sender's shard number, on replies
)

// publish sends b on subject, in parts when it exceeds the server's limit.
func publish(nc *nats.Conn, subject string, b []byte) error {
	if len(b) > MaxMessage {
		return fmt.Errorf("%w: %d bytes, at most %d", ErrTooLarge, len(b), MaxMessage)
	}
	size := int(nc.MaxPayload()) - 1024
	if size < 1024 {
		size = 1024
	}
	if len(b) <= size {
		return nc.Publish(subject, b)
	}
	n := (len(b) + size - 1) / size
	for i := range n {
		m := nats.NewMsg(subject)
		m.Header.Set(hdrPart, strconv.Itoa(i+1)+"/"+strconv.Itoa(n))
		m.Data = b[i*size : min(len(b), (i+1)*size)]
		if err := nc.PublishMsg(m); err != nil {
			return err
		}
	}
	return nil
}

// parts reassembles messages sent in parts, from one sender.
type parts struct {
	buf  []byte
	next int
}

// add takes one NATS message; it returns the whole protocol message when
// it is complete.
func (p *parts) add(m *nats.Msg) ([]byte, bool, error) {
	h := ""
	if m.Header != nil {
		h = m.Header.Get(hdrPart)
	}
	if h == "" {
		if p.next != 0 {
			return nil, false, fmt.Errorf("%w: a whole message amid parts", cluster.ErrMessage)
		}
		return m.Data, true, nil
	}
	i, n, ok := strings.Cut(h, "/")
	ii, err1 := strconv.Atoi(i)
	nn, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || ii != p.next+1 || ii > nn || nn < 2 {
		return nil, false, fmt.Errorf("%w: part %q where part %d was next", cluster.ErrMessage, h, p.next+1)
	}
	if len(p.buf)+len(m.Data) > MaxMessage {
		return nil, false, fmt.Errorf("%w: parts beyond %d bytes", ErrTooLarge, MaxMessage)
	}
	p.buf = append(p.buf, m.Data...)
	p.next = ii
	if ii < nn {
		return nil, false, nil
	}
	b := p.buf
	p.buf, p.next = nil, 0
	return b, true, nil
}
