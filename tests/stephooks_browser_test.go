package tests

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/liveview"
)

// The live view of a game a Go program steps (liveview.Options.Embedded)
// says, while paused, that time travel replays btrun's part only when the
// program gave no BeforeStep or AfterStep (timeTravel.btrunOnly): its own
// between-step code would not be replayed. With a callback the note is
// gone.

const btrunOnlyNote = "travel replays btrun's part only"

// TestBrowser_btrunOnlyNoteWithoutStepCallbacks opens the page of an
// embedded game, paused, without and then with a BeforeStep, and reads the
// time-travel line.
func TestBrowser_btrunOnlyNoteWithoutStepCallbacks(t *testing.T) {
	ctx := browser(t)
	for _, hooks := range []bool{false, true} {
		t.Run(fmt.Sprintf("callbacks=%v", hooks), func(t *testing.T) {
			url := embeddedView(t, hooks)
			var info string
			if err := chromedp.Run(ctx,
				chromedp.Navigate(url),
				waitText("#runstate", "paused"),
				// The paused branch of the line has rendered (the running
				// one says "pause to go back in time").
				waitTextNot("#travelinfo", "pause to go back in time"),
				chromedp.Text("#travelinfo", &info, chromedp.ByQuery),
			); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(info, btrunOnlyNote); got == hooks {
				t.Errorf("with step callbacks %v, the time-travel line reads %q", hooks, info)
			}
		})
	}
}

// embeddedView opens a one-agent game from Go values (with a BeforeStep
// when hooks), serves its live view, paused, on a test server, and steps
// it from a loop of its own, as a program would; it returns the page's
// address. The loop and the game end with the test.
func embeddedView(t *testing.T, hooks bool) string {
	t.Helper()
	cfg := game.NewConfig("")
	cfg.Trees = []game.TreeConfig{{Name: "idle", File: "ai/idle.xml"}}
	cfg.Agents = []game.AgentConfig{{Tree: "idle", Count: 1}}
	opts := game.Options{Files: fstest.MapFS{"ai/idle.xml": {Data: []byte(
		`<behaviorTree><action id="idle" name="bt.wait"><parameter name="wait.seconds">1</parameter></action></behaviorTree>`)}}}
	if hooks {
		opts.BeforeStep = func(*game.Game, game.StepInfo) error { return nil }
	}
	g, err := game.Open(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		g.Close()
		t.Fatal(err)
	}
	view := liveview.New(g, liveview.Options{Embedded: true, Paused: true})
	srv := httptest.NewServer(view.Handler())
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { // the program's loop: the game's own goroutine
		defer close(done)
		defer g.Close()
		tick := time.NewTicker(5 * time.Millisecond) // a frame; paused, Advance only serves the page
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			if _, err := g.Advance(); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		<-done
		view.Close()
		srv.Close()
	})
	return srv.URL + "/"
}

// waitTextNot waits until the element has a text other than not.
func waitTextNot(sel, not string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var got string
		for {
			if err := chromedp.Text(sel, &got, chromedp.ByQuery).Do(ctx); err == nil && got != "" && got != not {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s never read other than %q: %w", sel, not, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}
