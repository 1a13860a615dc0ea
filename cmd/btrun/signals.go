package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// Stopping a run on SIGINT (Ctrl-C) or SIGTERM: the first signal asks the
// game to stop after the step in progress; the run then saves (when -save
// or [save] asks for it), ends the trace on a whole line, stops the
// plugins, prints its summary and exits with 128 + the signal's number
// (130 for SIGINT, 143 for SIGTERM), as shells report a process a signal
// ended. A second signal exits at once with that code, without saving.

// interrupts watches for the stop signals until release is called.
type interrupts struct {
	stop   chan struct{}
	caught atomic.Value // the first os.Signal
	sigs   chan os.Signal
	done   chan struct{}
}

func watchInterrupts(stderr io.Writer) *interrupts {
	in := &interrupts{stop: make(chan struct{}), sigs: make(chan os.Signal, 2), done: make(chan struct{})}
	signal.Notify(in.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-in.sigs:
			in.caught.Store(s)
			fmt.Fprintf(stderr, "btrun: %v: stopping after the step in progress (a second signal stops at once)\n", s)
			close(in.stop)
		case <-in.done:
			return
		}
		select {
		case s := <-in.sigs:
			fmt.Fprintf(stderr, "btrun: %v again: stopping now\n", s)
			os.Exit(signalExit(s))
		case <-in.done:
		}
	}()
	return in
}

// exitCode is the code for a run the first signal stopped, or 0 when none
// came.
func (in *interrupts) exitCode() int {
	if s, ok := in.caught.Load().(os.Signal); ok {
		return signalExit(s)
	}
	return 0
}

func (in *interrupts) release() {
	signal.Stop(in.sigs)
	close(in.done)
}

// signalExit is 128 + the signal's number.
func signalExit(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return exitRuntime
}
