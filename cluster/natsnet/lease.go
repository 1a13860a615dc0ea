package natsnet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// A Lease makes one process the conductor of a run: the key "lease" of the
// run's key-value store names its holder and until when it holds. The
// holder renews it before then; another process takes it only once it has
// run out, and every write is a compare-and-set of the revision read, so
// two processes never both hold it. A holder whose renewal fails (another
// took the lease while it was silent) is stale: it stands down.
type Lease struct {
	kv     jetstream.KeyValue
	run    string
	holder string
	ttl    time.Duration
	now    func() time.Time
	rev    uint64
	until  time.Time
}

// LeaseHeldError is a lease another process holds.
type LeaseHeldError struct {
	Run, Holder string
	Left        time.Duration // until it runs out unless renewed
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("natsnet: run %s has a conductor: %s (its lease runs out in %s unless renewed)", e.Run, e.Holder, e.Left.Round(time.Millisecond))
}

// ErrStale is a lease that another process took: its former holder is no
// longer the run's conductor.
var ErrStale = errors.New("natsnet: this conductor's lease was taken by another; it stands down")

const leaseKey = "lease"

// TakeLease takes run's lease for holder (a name for messages), for ttl
// from now (now() is the clock: time.Now but in tests). A lease another
// holds and that has not run out is a *LeaseHeldError.
func (s *Store) TakeLease(holder string, ttl time.Duration, now func() time.Time) (*Lease, error) {
	l := &Lease{kv: s.kv, run: s.run, holder: holder, ttl: ttl, now: now}
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	e, err := s.kv.Get(ctx, leaseKey)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return l, l.write(ctx, 0, true)
	case err != nil:
		return nil, fmt.Errorf("natsnet: the lease of run %s: %w", s.run, err)
	}
	who, until := parseLease(e.Value())
	if left := until.Sub(now()); left > 0 {
		return nil, &LeaseHeldError{Run: s.run, Holder: who, Left: left}
	}
	if err := l.write(ctx, e.Revision(), false); err != nil {
		if errors.Is(err, ErrStale) { // another took it first
			return nil, &LeaseHeldError{Run: s.run, Holder: "another process", Left: ttl}
		}
		return nil, err
	}
	return l, nil
}

// write sets the lease to its holder until now+ttl, over revision rev
// (create: over none).
func (l *Lease) write(ctx context.Context, rev uint64, create bool) error {
	until := l.now().Add(l.ttl)
	v := []byte(l.holder + "\n" + strconv.FormatInt(until.UnixNano(), 10))
	var err error
	if create {
		rev, err = l.kv.Create(ctx, leaseKey, v)
	} else {
		rev, err = l.kv.Update(ctx, leaseKey, v, rev)
	}
	if err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) || isWrongSequence(err) {
			return fmt.Errorf("%w (run %s)", ErrStale, l.run)
		}
		return fmt.Errorf("natsnet: writing the lease of run %s: %w", l.run, err)
	}
	l.rev, l.until = rev, until
	return nil
}

func parseLease(b []byte) (holder string, until time.Time) {
	who, ns, _ := strings.Cut(string(b), "\n")
	n, err := strconv.ParseInt(ns, 10, 64)
	if err != nil {
		return who, time.Time{} // unreadable: run out
	}
	return who, time.Unix(0, n)
}

// Renew extends the lease by its ttl from now; ErrStale if another took
// it, or if it ran out and cannot be renewed (another may hold it).
func (l *Lease) Renew() error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	err := l.write(ctx, l.rev, false)
	if err != nil && !errors.Is(err, ErrStale) && !l.now().Before(l.until) {
		return fmt.Errorf("%w: it ran out and cannot be renewed: %w", ErrStale, err)
	}
	return err
}

// Due reports whether a third of the lease is used: time to renew.
func (l *Lease) Due() bool { return l.until.Sub(l.now()) < l.ttl*2/3 }

// Revision is the lease's revision: it grows with every take and renewal,
// a fencing token for what its holder does.
func (l *Lease) Revision() uint64 { return l.rev }

// Release gives the lease up (at the run's end), unless another took it.
func (l *Lease) Release() error {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	if err := l.kv.Delete(ctx, leaseKey, jetstream.LastRevision(l.rev)); err != nil && !isWrongSequence(err) {
		return fmt.Errorf("natsnet: releasing the lease of run %s: %w", l.run, err)
	}
	return nil
}
