package natsnet

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/btrun/btrun/cluster"
	"github.com/nats-io/nats.go"
)

// ConductorLink is the conductor's end over NATS (a cluster.ConductorLink).
type ConductorLink struct {
	o       Options
	nc      *nats.Conn
	upSub   *nats.Subscription
	up      chan *nats.Msg
	ids     []string // the down subject's token of each shard
	names   []string // each shard's name, for messages
	labels  []string // "shard k (name)" for the sequence's errors, made as it joins
	downs   []string // the down subject of each shard, made as it joins
	down    []cluster.Sequence
	check   []cluster.Sequence
	asked   []cluster.Asked // what each shard was sent last
	parts   []parts
	sent    []bool
	traffic cluster.Traffic
	waits   []time.Duration // per shard: time from Gather's start to its reply
	closed  bool
	// manifest is the hash of the game's files' manifest, given to every
	// shard that joins.
	manifest string
	link     string // this link's id among the run's (link_epoch.go)

	// replyTimer bounds each Gather's wait (Options.ReplyTimeout): one
	// timer for the link, reset by every Gather, not one made per round.
	replyTimer *time.Timer
}

// Conduct connects to NATS as the conductor of run o.Run and waits for its
// shards to join (o.JoinTimeout), once it has published the game's files
// (o.Files) to the run's object store, numbering them in the order they join. A
// shard of another version is refused, naming both versions; shards that
// do not join in time are named in the error (ErrMissing).
func Conduct(o Options, shards int) (*ConductorLink, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if shards < 1 {
		return nil, fmt.Errorf("natsnet: %d shards", shards)
	}
	nc, err := connect(&o, "conductor")
	if err != nil {
		return nil, err
	}
	c := &ConductorLink{o: o, nc: nc, up: make(chan *nats.Msg, chanRoom*(shards+1)),
		down: make([]cluster.Sequence, shards), check: make([]cluster.Sequence, shards), asked: make([]cluster.Asked, shards),
		parts: make([]parts, shards), sent: make([]bool, shards), waits: make([]time.Duration, shards), link: newLinkID()}
	if c.upSub, err = nc.ChanSubscribe(upAll(&o), c.up); err != nil {
		nc.Close()
		return nil, fmt.Errorf("natsnet: conductor: %w", err)
	}
	if c.manifest, err = publishFiles(nc, o.Run, o.Files, o.Config); err != nil {
		nc.Close()
		return nil, err
	}
	if err := c.admit(shards); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// admit answers join requests until shards have joined or the time is up.
func (c *ConductorLink) admit(shards int) error {
	joins := make(chan *nats.Msg, 64)
	sub, err := c.nc.ChanSubscribe(c.o.subject("join"), joins)
	if err != nil {
		return fmt.Errorf("natsnet: conductor: %w", err)
	}
	defer sub.Unsubscribe()
	timer := time.NewTimer(c.o.JoinTimeout)
	defer timer.Stop()
	var refused []string
	for len(c.ids) < shards {
		select {
		case m := <-joins:
			version, id, name := parseJoin(m.Data)
			switch {
			case id == "":
				m.Respond([]byte("refused: a malformed join request"))
			case version != c.o.Version:
				why := fmt.Sprintf("the run %s is btrun %s, the shard %s is btrun %s", c.o.Run, c.o.Version, name, version)
				refused = append(refused, why)
				m.Respond([]byte("refused: version: " + why))
			default:
				c.ids = append(c.ids, id)
				c.names = append(c.names, name)
				c.labels = append(c.labels, fmt.Sprintf("shard %d (%s)", len(c.ids)-1, name))
				c.downs = append(c.downs, c.o.subject("down", id))
				m.Respond([]byte("ok " + strconv.Itoa(len(c.ids)-1) + " " + strconv.Itoa(shards) + " " + c.manifest + " " + c.link))
			}
		case <-timer.C:
			joined := ""
			if len(c.ids) > 0 {
				joined = " (joined: " + strings.Join(c.names, ", ") + ")"
			}
			err := fmt.Errorf("%w: %d of %d shards joined run %s on %s within %s%s", ErrMissing, len(c.ids), shards, c.o.Run, c.o.URL, c.o.JoinTimeout, joined)
			if len(refused) > 0 {
				err = fmt.Errorf("%w; refused: %s: %w", err, strings.Join(refused, "; "), ErrVersion)
			}
			return err
		}
	}
	return nil
}

func parseJoin(b []byte) (version, id, name string) {
	f := strings.SplitN(string(b), "\n", 3)
	if len(f) != 3 {
		return "", "", ""
	}
	return f[0], f[1], f[2]
}

func (c *ConductorLink) Shards() int { return len(c.ids) }

// Names are the shards' names, by number.
func (c *ConductorLink) Names() []string { return c.names }

// Traffic is what the link carried so far.
func (c *ConductorLink) Traffic() cluster.Traffic { return c.traffic }

// Waits is, per shard, the time the conductor waited for its replies so
// far: from the start of each Gather to the shard's reply. The slowest
// shard's is the barrier's cost; the others' show the imbalance.
func (c *ConductorLink) Waits() []time.Duration { return c.waits }

func (c *ConductorLink) Send(k int, m *cluster.Message) error {
	if c.closed {
		return cluster.ErrClosed
	}
	if k < 0 || k >= len(c.ids) {
		return fmt.Errorf("natsnet: no shard %d of %d", k, len(c.ids))
	}
	if c.sent[k] {
		return fmt.Errorf("natsnet: a second message to shard %d before its reply (%s)", k, m.Kind)
	}
	m.Seq = c.down[k].Next()
	c.asked[k].Sent(m)
	b := m.Append(nil)
	if err := publish(c.nc, c.downs[k], b); err != nil {
		return &cluster.ShardsError{Shards: []int{k}, Errs: []error{fmt.Errorf("natsnet: sending to shard %d (%s): %w", k, c.names[k], err)}}
	}
	c.traffic.Sent++
	c.traffic.SentBytes += uint64(len(b))
	c.sent[k] = true
	return nil
}

func (c *ConductorLink) Gather(replies []cluster.Message) error {
	waiting := 0
	for _, s := range c.sent {
		if s {
			waiting++
		}
	}
	var failed cluster.ShardsError
	fail := func(k int, err error) {
		failed.Shards = append(failed.Shards, k)
		failed.Errs = append(failed.Errs, err)
	}
	if c.replyTimer == nil {
		c.replyTimer = time.NewTimer(c.o.ReplyTimeout)
	} else {
		c.replyTimer.Reset(c.o.ReplyTimeout) // stopped by the last Gather: no stale tick (Go 1.23's timers)
	}
	timer := c.replyTimer
	defer timer.Stop()
	start := time.Now()
	for waiting > 0 {
		select {
		case m := <-c.up:
			k, stale := c.o.staleReply(m, c.link)
			if stale {
				continue
			}
			if k >= len(c.ids) || !c.sent[k] {
				return fmt.Errorf("natsnet: a reply on %s, from no shard that was asked: %w", m.Subject, cluster.ErrSequence)
			}
			b, whole, err := c.parts[k].add(m)
			if err == nil && !whole {
				continue
			}
			c.sent[k] = false
			waiting--
			c.waits[k] += time.Since(start)
			if err != nil {
				fail(k, err)
				continue
			}
			c.traffic.Received++
			c.traffic.ReceivedBytes += uint64(len(b))
			r, err := cluster.Decode(b)
			if err == nil {
				err = c.check[k].Check(&r, c.labels[k])
			}
			if err == nil {
				if err = c.asked[k].Check(&r); err != nil {
					err = fmt.Errorf("natsnet: shard %d (%s): %w", k, c.names[k], err)
				}
			}
			if err == nil && r.Err != "" {
				err = fmt.Errorf("natsnet: shard %d (%s): %s", k, c.names[k], r.Err)
			}
			if err != nil {
				fail(k, err)
				continue
			}
			replies[k] = r
		case p := <-c.o.Gone:
			for k, s := range c.sent {
				if s {
					c.sent[k] = false
					fail(k, fmt.Errorf("%w: shard %d (%s) did not reply: shard process %d ended", ErrMissing, k, c.names[k], p))
				}
			}
			waiting = 0
		case <-timer.C:
			for k, s := range c.sent {
				if s {
					c.sent[k] = false
					fail(k, fmt.Errorf("%w: shard %d (%s) did not reply within %s", ErrMissing, k, c.names[k], c.o.ReplyTimeout))
				}
			}
			waiting = 0
		}
	}
	if len(failed.Shards) > 0 {
		sort.Sort(byShard(failed))
		return &cluster.ShardsError{Shards: failed.Shards, Errs: failed.Errs} // a copy: failed stays on the stack
	}
	return nil
}

type byShard cluster.ShardsError

func (b byShard) Len() int           { return len(b.Shards) }
func (b byShard) Less(i, j int) bool { return b.Shards[i] < b.Shards[j] }
func (b byShard) Swap(i, j int) {
	b.Shards[i], b.Shards[j] = b.Shards[j], b.Shards[i]
	b.Errs[i], b.Errs[j] = b.Errs[j], b.Errs[i]
}

// Close tells the shards the run ended and closes the connection.
func (c *ConductorLink) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	err := c.nc.Publish(c.o.subject("bye"), []byte(c.link))
	if err == nil {
		err = c.nc.Flush()
	}
	c.nc.Close()
	return err
}
