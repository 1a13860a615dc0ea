package liveview

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Live updates: GET /api/events is a Server-Sent Events stream of "update"
// events, each the whole picture a page needs: the status, every agent's
// summary and, with ?agent=ID, that agent's full view. The game's
// goroutine renders them (at most every publishEvery while running, and
// after every change while paused) and hands each subscriber the latest
// through a one-slot channel.

type subscriber struct {
	agent string
	ch    chan []byte // one slot: the latest update
}

type subscribers struct {
	mu   sync.Mutex
	list []*subscriber
	any  bool // someone is waiting for a first update
}

func (s *subscribers) add(agent string) (*subscriber, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.list) >= maxSubscribers {
		return nil, false
	}
	sub := &subscriber{agent: agent, ch: make(chan []byte, 1)}
	s.list = append(s.list, sub)
	s.any = true
	return sub, true
}

func (s *subscribers) remove(sub *subscriber) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, x := range s.list {
		if x == sub {
			s.list = append(s.list[:i], s.list[i+1:]...)
			return
		}
	}
}

// snapshot returns the subscribers and whether one is waiting for its first
// update.
func (s *subscribers) snapshot() ([]*subscriber, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := s.any
	s.any = false
	return append([]*subscriber(nil), s.list...), fresh
}

// poke wakes a paused game so that it publishes to a new subscriber.
func (d *Debugger) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// publishIfDue publishes while the game runs, at most every publishEvery.
func (d *Debugger) publishIfDue() {
	if d.dirty || time.Since(d.published) >= publishEvery {
		d.publish()
	}
}

// publish renders an update for every subscriber, if there is anything new
// to show or someone new to show it to.
func (d *Debugger) publish() {
	subs, fresh := d.subs.snapshot()
	if len(subs) == 0 || !d.dirty && !fresh && d.paused {
		d.dirty = false
		return
	}
	d.dirty = false
	d.published = time.Now()
	infos := d.g.AgentInfos()
	status, _ := json.Marshal(d.statusView())
	agents, _ := json.Marshal(d.agentSummaries(infos))
	views := map[string][]byte{}
	for _, sub := range subs {
		body, ok := views[sub.agent]
		if !ok {
			var agent []byte = []byte("null")
			if i, found := d.byID[sub.agent]; found {
				agent, _ = json.Marshal(d.agentView(i, infos[i]))
			}
			body, _ = json.Marshal(update{Status: status, Agents: agents, Agent: agent})
			views[sub.agent] = body
		}
		select { // keep only the latest
		case <-sub.ch:
		default:
		}
		select {
		case sub.ch <- body:
		default:
		}
	}
}

type update struct {
	Status json.RawMessage `json:"status"`
	Agents json.RawMessage `json:"agents"`
	Agent  json.RawMessage `json:"agent"`
}

// events is GET /api/events.
func (d *Debugger) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		writeError(w, errorf(http.StatusInternalServerError, "this connection cannot stream events"))
		return
	}
	if d.ended.Load() {
		writeError(w, errEnded)
		return
	}
	if r.Method == http.MethodHead {
		w.Header().Set("Content-Type", "text/event-stream")
		return
	}
	sub, ok := d.subs.add(r.URL.Query().Get("agent"))
	if !ok {
		writeError(w, errorf(http.StatusServiceUnavailable, "too many live update streams are open (%d)", maxSubscribers))
		return
	}
	defer d.subs.remove(sub)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n\n")
	fl.Flush()
	d.poke()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case body := <-sub.ch:
			if _, err := fmt.Fprintf(w, "event: update\ndata: %s\n\n", body); err != nil {
				return
			}
			fl.Flush()
		case <-ping.C:
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-d.done:
			select { // the last picture first
			case body := <-sub.ch:
				fmt.Fprintf(w, "event: update\ndata: %s\n\n", body)
			default:
			}
			fmt.Fprint(w, "event: end\ndata: {}\n\n")
			fl.Flush()
			return
		case <-r.Context().Done():
			return
		}
	}
}
