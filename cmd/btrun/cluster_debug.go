package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/liveview"
)

// The live view of a cluster run (`btrun run -shards N -debug ADDR`,
// docs/debug.md) lists and draws every shard's agents from the conductor's
// copies. A run that loses a shard goes back to its last checkpoint and
// replays, a new game on a new link (cluster_recover.go): the page stays at
// the same address, and while the run replays it is told so (503); the
// replay runs without the live view, the page's commands of those steps
// applied again from the journal, and a new live view takes the game at
// the step the run had reached, paused as the run started (-paused). A
// resumed run (-resume) shows its replay from the checkpoint on.

// clusterView is a cluster run's live view server: one listener for every
// attempt of the run, each attempt's game with a live view of its own.
type clusterView struct {
	opts    debugOptions
	ln      net.Listener
	srv     *http.Server
	reached uint64 // the step the run reached, in every attempt so far
	waiting *game.Game

	mu  sync.Mutex // cur and why: the server's goroutines read them
	cur *liveview.Debugger
	h   http.Handler // cur's
	why string       // what the page is told while cur is nil

	reloads uint64 // the reloads journaled before the page's moment (cluster_livereload.go)
}

// startDebug readies the live view of the attempt's game g: at once on
// the run's first attempt (or a resumed run's), else once the replay
// reached the step the run had (debugDue). stop ends it after the
// attempt: the server goes on if err is a lost shard, which the run
// recovers from.
func (s *clusterSession) startDebug(g *game.Game) (stop func(err error), err error) {
	if s.r.debug.addr == "" {
		return func(error) {}, nil
	}
	v := s.view
	if v == nil {
		if v, err = s.serveView(); err != nil {
			return nil, err
		}
		s.view = v
	}
	v.waiting = g
	return func(err error) {
		v.mu.Lock()
		d := v.cur
		v.cur, v.h, v.waiting = nil, nil, nil
		v.why = "the run has ended"
		if lost(err) {
			v.why = "the run lost a shard and goes back to its last checkpoint, then replays to step " + fmt.Sprint(v.reached)
		}
		v.mu.Unlock()
		if d != nil {
			d.Close()
		}
		if !lost(err) {
			ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
			defer cancel()
			if v.srv.Shutdown(ctx) != nil {
				v.srv.Close()
			}
		}
	}, nil
}

// serveView listens on the -debug address and serves the page there for
// the whole run.
func (s *clusterSession) serveView() (*clusterView, error) {
	opts := s.r.debug
	ln, err := net.Listen("tcp", opts.addr)
	if err != nil {
		return nil, fmt.Errorf("-debug %s: %w", opts.addr, err)
	}
	v := &clusterView{opts: opts, ln: ln, why: "the run is starting"}
	v.srv = &http.Server{Handler: v, ReadHeaderTimeout: 10 * time.Second}
	go v.srv.Serve(ln)
	// Its notices go to standard error: the output stream is the run's,
	// counted for its checkpoints.
	fmt.Fprintf(s.stderr, "btrun: live view at %s (the page's Quit button ends the run)\n", liveURL(ln.Addr()))
	if !loopbackOnly(ln.Addr()) {
		fmt.Fprintf(s.stderr, "btrun: warning: the live view listens on %s, not only on this machine: whoever reaches it can pause and change the game (use 127.0.0.1)\n", ln.Addr())
	}
	return v, nil
}

// debugDue attaches the waiting live view when the run is at c's step, the
// step the run had reached (or at once on the first attempt): call it
// before each step's moment for the live view. It returns true.
func (s *clusterSession) debugDue(c *game.Conductor) bool {
	v := s.view
	if v == nil {
		return true
	}
	step := c.Step()
	v.reloads = c.Reloads() // cluster_livereload.go: the page's reloads are those after
	if v.waiting != nil && step >= v.reached {
		host, _, _ := net.SplitHostPort(v.opts.addr)
		d := liveview.New(v.waiting, liveview.Options{Paused: v.opts.paused, Fast: v.opts.fast, Host: host, Reload: v.waiting.ReloadAll, Edit: v.opts.edit})
		if s.links > 1 {
			fmt.Fprintf(s.stderr, "btrun: live view: the run is back at step %d\n", step)
		}
		v.mu.Lock()
		v.cur, v.h, v.waiting = d, d.Handler(), nil
		v.mu.Unlock()
	}
	v.reached = max(v.reached, step)
	return true
}

// ServeHTTP is the current live view's, or says why there is none.
func (v *clusterView) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.mu.Lock()
	h, why := v.h, v.why
	v.mu.Unlock()
	if h != nil {
		h.ServeHTTP(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", "1")
	w.WriteHeader(http.StatusServiceUnavailable)
	json.NewEncoder(w).Encode(map[string]string{"error": why})
}
