package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// Relayed plugins: a plugin whose calls another process runs. A cluster's
// shard steps a range of the agents, but a plugin that keeps state shared
// between agents must get each round's calls of every agent as one batch,
// as in one process: its instance runs on the conductor. On the shard the
// plugin is relayed (Relay): Flush holds its round instead of sending it,
// the shard sends the round's batch up as bytes (Held), and the replies
// come back (Answer) before the agents resume, exactly as if Flush had
// sent the batch itself. On the conductor, RunRelayed joins the parts of
// every shard into one batch per plugin, runs it as Flush runs a round
// (one round trip, or chunks; timeouts, crashes and restarts as always)
// and cuts the replies back into the shards' parts.

// Relay makes the named plugin's calls wait for Answer instead of being
// sent (on a cluster's shard). Its process, started for its declarations,
// gets no call.
func (s *Set) Relay(name string) error {
	for _, p := range s.plugins {
		if p.spec.Name == name {
			p.relayed = true
			return nil
		}
	}
	return fmt.Errorf("host: Relay: no plugin %s", name)
}

// hold is Flush for a relayed plugin: its round waits for Answer.
func (p *plugin) hold(r *round) {
	n := len(r.batch.Calls)
	if cap(r.errs) < n {
		r.errs = make([]error, n)
	}
	r.errs = r.errs[:n]
	clear(r.errs)
	if cap(r.replies) < n {
		r.replies = make([]sdk.Reply, n)
	}
	r.replies = r.replies[:n]
	clear(r.replies)
	p.held = true
	p.set.calls.Add(int64(n))
}

// Held is a relayed plugin's round that waits for its replies.
type Held struct {
	Plugin string
	First  *runtime.Agent // the agent of the round's first call
	Calls  int            // the round's calls
	Data   []byte         // the round's batch (sdk.MarshalBatch)
}

// Held appends to out the rounds of relayed plugins that Flush held and
// that wait for Answer, in the plugins' order.
func (s *Set) Held(out []Held) ([]Held, error) {
	for _, p := range s.plugins {
		if !p.held {
			continue
		}
		data, err := sdk.MarshalBatch(&p.inflight.batch)
		if err != nil {
			return out, fmt.Errorf("host: plugin %s: %w", p.spec.Name, err)
		}
		h := Held{Plugin: p.spec.Name, Calls: len(p.inflight.batch.Calls), Data: data}
		for k := range s.sent {
			if s.sent[k].p == p && s.sent[k].i == 0 {
				h.First = s.sent[k].a
				break
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// Answer gives a held round of the named plugin its replies (an answer
// RunRelayed made): its agents resume with them.
func (s *Set) Answer(name string, answer []byte) error {
	var p *plugin
	for _, q := range s.plugins {
		if q.spec.Name == name {
			p = q
		}
	}
	if p == nil || !p.held {
		return fmt.Errorf("host: an answer for plugin %q, which has no round waiting", name)
	}
	r := &p.inflight
	replies, errs, err := unmarshalAnswer(answer, len(r.batch.Calls))
	if err != nil {
		return fmt.Errorf("host: the answer for plugin %s: %w", name, err)
	}
	copy(r.replies, replies)
	copy(r.errs, errs)
	p.held = false
	return nil
}

// Part is one shard's batch of a plugin in a round, and its answer.
type Part struct {
	Plugin string
	Data   []byte // the batch (Held.Data)
	Answer []byte // set by RunRelayed: the replies to the part's calls
}

// relayRun is a plugin's joined batch of a round on the conductor.
type relayRun struct {
	p     *plugin
	r     round
	parts []int // the parts of the batch, in order
	cuts  []int // where each part's calls begin
	sites map[string]uint32
}

// RunRelayed runs a round's relayed calls: the parts of each plugin are
// joined in the order given into one batch (their sites merged, each site
// once), the plugins' batches go out concurrently as Flush sends them,
// and each part gets the replies to its calls in its Answer. A plugin that
// fails fails the calls, as in Flush; the error is then each call's, in
// the answer. The error is the parts': bytes that are not a batch, an
// unknown plugin.
func (s *Set) RunRelayed(parts []Part) error {
	var runs []*relayRun
	for i := range parts {
		var run *relayRun
		for _, r := range runs {
			if r.p.spec.Name == parts[i].Plugin {
				run = r
			}
		}
		if run == nil {
			p := s.byName(parts[i].Plugin)
			if p == nil {
				return fmt.Errorf("host: calls relayed to plugin %q, which this set does not run", parts[i].Plugin)
			}
			run = &relayRun{p: p, sites: map[string]uint32{}}
			runs = append(runs, run)
		}
		b, err := sdk.UnmarshalBatch(parts[i].Data)
		if err != nil {
			return fmt.Errorf("host: calls relayed to plugin %s: %w", parts[i].Plugin, err)
		}
		run.add(i, &b)
	}
	var wg sync.WaitGroup
	for _, run := range runs {
		if len(runs) == 1 {
			run.p.send(&run.r)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			run.p.send(&run.r)
		}()
	}
	wg.Wait()
	s.flushNotes() // what failed in this round is said before the agents resume, as after Flush
	var errs []error
	for _, run := range runs {
		for k, i := range run.parts {
			lo, hi := run.cuts[k], len(run.r.batch.Calls)
			if k+1 < len(run.cuts) {
				hi = run.cuts[k+1]
			}
			var err error
			parts[i].Answer, err = marshalAnswer(run.r.replies[lo:hi], run.r.errs[lo:hi])
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// byName is the plugin of that name, or nil.
func (s *Set) byName(name string) *plugin {
	for _, p := range s.plugins {
		if p.spec.Name == name {
			return p
		}
	}
	return nil
}

// add appends part i's calls to the run's batch, each call's site mapped
// to the batch's (one entry per distinct site, in the order first met).
func (run *relayRun) add(i int, b *sdk.Batch) {
	run.parts = append(run.parts, i)
	run.cuts = append(run.cuts, len(run.r.batch.Calls))
	at := make([]uint32, len(b.Sites))
	for k := range b.Sites {
		at[k] = noSite
	}
	for _, c := range b.Calls {
		if at[c.Site] == noSite {
			at[c.Site] = run.site(&b.Sites[c.Site], c.Kind)
		}
		c.Site = at[c.Site]
		run.r.batch.Calls = append(run.r.batch.Calls, c)
	}
}

// noSite marks a part's site not yet in the joined batch.
const noSite = ^uint32(0)

// site is the batch's index of site st, added when new. The conductor's
// sites are keyed by what the plugin sees of them (name, rule, parameters),
// and each keeps the time its calls took, under its kind's name.
func (run *relayRun) site(st *sdk.Site, kind sdk.CallKind) uint32 {
	var key strings.Builder
	key.WriteString(st.Name)
	key.WriteByte(0)
	key.WriteString(st.Rule)
	for _, p := range st.Params {
		key.WriteByte(0)
		key.WriteString(p.Name)
		key.WriteByte(1)
		key.WriteString(p.Value)
	}
	if k, ok := run.sites[key.String()]; ok {
		return k
	}
	word := "action"
	switch kind {
	case sdk.KindCondition:
		word = "condition"
	case sdk.KindScorer:
		word = "scorer"
	}
	k := uint32(len(run.r.batch.Sites))
	run.sites[key.String()] = k
	run.r.batch.Sites = append(run.r.batch.Sites, *st)
	run.r.sites = append(run.r.sites, &site{p: run.p, info: *st, times: run.p.set.callTimes(word, st.Name)})
	return k
}

// The errors of calls that cross with their answers: which sentinel each
// wraps, so that errors.Is finds it on the other side too.
var relayErrs = []error{ErrCall, ErrCrashed, ErrTimeout, ErrDown, ErrClosed, ErrUsage}

// marshalAnswer is the replies to a part's calls and the errors of the
// calls that failed (index, sentinel, message).
func marshalAnswer(replies []sdk.Reply, errs []error) ([]byte, error) {
	data, err := sdk.MarshalReplies(replies)
	if err != nil {
		return nil, err
	}
	e := savecodec.NewEncoder()
	e.Blob(data)
	n := 0
	for _, err := range errs {
		if err != nil {
			n++
		}
	}
	e.Uvarint(uint64(n))
	for i, err := range errs {
		if err == nil {
			continue
		}
		code := len(relayErrs)
		for k, s := range relayErrs {
			if errors.Is(err, s) {
				code = k
				break
			}
		}
		e.Uvarint(uint64(i))
		e.Uvarint(uint64(code))
		e.Blob([]byte(err.Error()))
	}
	return append([]byte(nil), e.Bytes()...), nil
}

// unmarshalAnswer reads what marshalAnswer wrote for calls calls.
func unmarshalAnswer(b []byte, calls int) ([]sdk.Reply, []error, error) {
	d := savecodec.NewDecoder(b, nil)
	replies, err := sdk.UnmarshalReplies(d.Blob())
	if err != nil {
		return nil, nil, err
	}
	if len(replies) != calls {
		return nil, nil, fmt.Errorf("%d replies to %d calls", len(replies), calls)
	}
	errs := make([]error, calls)
	n := d.Count(3)
	for range n {
		i, code, msg := d.Uvarint(), d.Uvarint(), string(d.Blob())
		if d.Err() != nil {
			break
		}
		if i >= uint64(calls) {
			return nil, nil, fmt.Errorf("the error of call %d of %d", i, calls)
		}
		if code < uint64(len(relayErrs)) {
			errs[i] = newErr(msg, relayErrs[code])
		} else {
			errs[i] = errors.New(msg)
		}
	}
	if err := d.Done(); err != nil {
		return nil, nil, err
	}
	return replies, errs, nil
}

// A plugin that runs elsewhere need not run here: where a relaying set
// opens its game from files another process sent (a cluster's shard), the
// plugin's path holds its declarations instead of its program
// (Declarations). Start then starts no process for it: it declares what
// the file says, and its calls are relayed (Relay). Only a plugin without
// cancel hooks may stand so: a cancel hook is a synchronous call, which
// does not travel (a relaying set whose plugin declares one runs its own
// instance for them).

// declarationsMagic starts a declarations file.
const declarationsMagic = "#!btrun plugin declarations 1\n"

// Declarations is the file that stands at a plugin's path in place of its
// program where the plugin runs elsewhere: what it declares.
func Declarations(d *sdk.Description) ([]byte, error) {
	b, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("host: plugin %s's declarations: %w", d.Plugin, err)
	}
	return append([]byte(declarationsMagic), b...), nil
}

// declaredAt reads the declarations at spec's path; ok is false when the
// path holds anything else (a program, a Go package: started as always).
func declaredAt(spec *Spec) (d *sdk.Description, ok bool, err error) {
	path := spec.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(spec.Dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, nil // resolve says what is wrong
	}
	defer f.Close()
	head := make([]byte, len(declarationsMagic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != declarationsMagic {
		return nil, false, nil
	}
	body, err := io.ReadAll(io.LimitReader(f, maxDeclarations+1))
	if err == nil && len(body) > maxDeclarations {
		err = fmt.Errorf("more than %d bytes", maxDeclarations)
	}
	if err == nil {
		d = new(sdk.Description)
		err = json.Unmarshal(body, d)
	}
	if err != nil {
		return nil, true, newErr(fmt.Sprintf("host: plugin %s: the declarations at %s: %v", spec.Name, path, err), ErrStart, err)
	}
	for _, a := range d.Actions {
		if a.HasCancel {
			return nil, true, newErr(fmt.Sprintf("host: plugin %s: the declarations at %s name a cancel hook (action %s), which a plugin that runs elsewhere cannot serve: its program must stand there", spec.Name, path, a.Name), ErrStart)
		}
	}
	return d, true, nil
}

// maxDeclarations bounds a declarations file.
const maxDeclarations = 16 << 20
