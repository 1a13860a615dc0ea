package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/liveview"
)

// debugOptions are the live view's flags of `btrun run`.
type debugOptions struct {
	addr   string // -debug
	paused bool   // -paused
	edit   bool   // -edit
	fast   bool   // run as fast as it can (btrun view)
}

// shutdownWait is how long the server waits, after the run, for requests
// in progress to finish before it closes their connections: the run ends
// within a second of the page's Quit whatever a browser holds open.
const shutdownWait = 500 * time.Millisecond

// startDebug serves the live view of g on opts.addr (`btrun run -debug
// ADDR`, docs/debug.md) and attaches it to the game; with no address it
// does nothing. The returned stop ends it after the run.
func startDebug(g *game.Game, opts debugOptions, people io.Writer, interrupted <-chan struct{}) (stop func(), err error) {
	addr := opts.addr
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-debug %s: %w", addr, err)
	}
	host, _, _ := net.SplitHostPort(addr)
	// The page's reload button reloads every tree, script and plugin, as
	// -watch does for the files that changed.
	d := liveview.New(g, liveview.Options{Paused: opts.paused, Fast: opts.fast, Host: host, Reload: g.ReloadAll, Edit: opts.edit})
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	ended := make(chan struct{})
	go func() { // Ctrl-C or SIGTERM ends the run even while the page holds it paused
		select {
		case <-interrupted:
			d.Quit()
		case <-ended:
		}
	}()
	fmt.Fprintf(people, "btrun: live view at %s (Ctrl-C or the page's Quit button ends the run)\n", liveURL(ln.Addr()))
	if opts.edit {
		fmt.Fprintln(people, "btrun: -edit: the page edits the tree files; saving writes the file and reloads the game")
	}
	if !loopbackOnly(ln.Addr()) {
		fmt.Fprintf(people, "btrun: warning: the live view listens on %s, not only on this machine: whoever reaches it can pause and change the game (use 127.0.0.1)\n", ln.Addr())
	}
	return func() {
		close(ended)
		d.Close()
		ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	}, nil
}

// loopbackOnly reports whether a listener is reachable from this machine
// only: what it listens on, not the name it was given (localhost is a
// name, and it listens on a loopback address).
func loopbackOnly(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// liveURL is the page's address; an unspecified IP (":7070") is shown as
// localhost.
func liveURL(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return "http://" + a.String() + "/"
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "localhost"
	}
	return fmt.Sprintf("http://%s/", net.JoinHostPort(host, fmt.Sprint(tcp.Port)))
}
