package natsnet

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nuid"
)

// Links of one run are told apart. A run whose link ended (a lost shard:
// the conductor ends the link and makes a new one with the same run name,
// with -cluster) may still have a shard of the old link alive: one that
// was paused, say, and wakes up to send the reply it owed, or to read the
// old link's bye. Each link the conductor makes has an id of its own
// (a NUID), which it gives every shard in the answer to its join: a shard
// replies on btrun.RUN.up.LINK.K, and the conductor's bye carries the
// id. The conductor hears every btrun.RUN.up.>, so a reply of another
// link is ignored and said so (Options.Stale) rather than taken for the
// reply of the new link's shard K; a shard ignores a bye of another link
// (an old link's end, read by a shard that joined the new one), and says
// so too.

// newLinkID is the id of a new link.
func newLinkID() string { return nuid.Next() }

// upSubject is the subject of shard k's replies on link link.
func upSubject(o *Options, link string, k int) string {
	return o.subject("up", link, strconv.Itoa(k))
}

// upAll is the subject the conductor hears replies on: every link's, so
// that it can tell a stale shard's replies apart and say so.
func upAll(o *Options) string { return o.subject("up", ">") }

// parseUp reads a reply's subject: its link's id and its shard number; ok
// is false for a subject that is not btrun.RUN.up.LINK.K.
func parseUp(o *Options, subject string) (link string, k int, ok bool) {
	rest, ok := strings.CutPrefix(subject, o.subject("up")+".")
	if !ok {
		return "", 0, false
	}
	link, ks, ok := strings.Cut(rest, ".")
	if !ok || link == "" {
		return "", 0, false
	}
	k, err := strconv.Atoi(ks)
	if err != nil || k < 0 {
		return "", 0, false
	}
	return link, k, true
}

// stale reports a message of another link that this end ignored.
func (o *Options) stale(format string, args ...any) {
	if o.Stale != nil {
		o.Stale(fmt.Sprintf(format, args...))
	}
}

// staleReply tells whether m, a reply the conductor heard, belongs to
// another link than link (or to no link): then it is said so and must be
// ignored. k is its shard number when it is the link's.
func (o *Options) staleReply(m *nats.Msg, link string) (k int, stale bool) {
	l, k, ok := parseUp(o, m.Subject)
	if ok && l == link {
		return k, false
	}
	o.stale("natsnet: run %s: ignored a reply on %s, of another link of the run than this one (%s): a shard of an ended link", o.Run, m.Subject, link)
	return 0, true
}

// staleBye tells whether m, a bye the shard heard, ends another link than
// link: then it is said so and must be ignored.
func (o *Options) staleBye(m *nats.Msg, link string) bool {
	if string(m.Data) == link {
		return false
	}
	o.stale("natsnet: run %s: ignored the end of link %q, not this shard's (%s)", o.Run, m.Data, link)
	return true
}
