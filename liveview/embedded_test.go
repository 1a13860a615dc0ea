package liveview

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/btrun/btrun/game"
)

// A game a Go program steps from its own loop (game.Game.Advance), with the
// live view mounted under a prefix of the program's own http.ServeMux
// (Options.Embedded): the page and the API answer there, the view pauses,
// steps, resumes, reloads and quits the game, and the program's loop goes
// on while the view holds the game paused.

// loop is a program's loop: it calls Advance until the game ends, counting
// the calls that stepped and the ones the view held back.
type loop struct {
	stepped, held atomic.Int64
	end           chan error
}

func runLoop(g *game.Game, stop <-chan struct{}) *loop {
	l := &loop{end: make(chan error, 1)}
	go func() {
		for {
			select {
			case <-stop:
				l.end <- nil
				return
			default:
			}
			ok, err := g.Advance()
			switch {
			case err != nil:
				l.end <- err
				return
			case ok:
				l.stepped.Add(1)
			default:
				l.held.Add(1)
				time.Sleep(time.Millisecond) // a frame of the program's loop, which goes on
			}
		}
	}()
	return l
}

func TestEmbedded_liveViewOnTheProgramsOwnServer(t *testing.T) {
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			cfg, err := game.LoadConfig(guards)
			if err != nil {
				t.Fatal(err)
			}
			g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard, Stderr: io.Discard, Workers: &workers})
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if err := g.Start(); err != nil {
				t.Fatal(err)
			}
			reloads := 0
			d := New(g, Options{Embedded: true, Paused: true, Reload: func() (string, error) {
				reloads++
				return g.ReloadAll()
			}})
			defer d.Close()

			mux := http.NewServeMux()
			mux.Handle("/debug/", http.StripPrefix("/debug", d.Handler()))
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "the program's own page") })
			srv := httptest.NewServer(mux)
			defer srv.Close()
			call := func(method, path, body string) (int, map[string]any) {
				t.Helper()
				req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
				resp, err := srv.Client().Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				raw, _ := io.ReadAll(resp.Body)
				var v map[string]any
				json.Unmarshal(raw, &v)
				if v == nil {
					v = map[string]any{"body": string(raw)}
				}
				return resp.StatusCode, v
			}
			stepOf := func(v map[string]any) float64 {
				if st, ok := v["status"].(map[string]any); ok {
					return st["step"].(float64)
				}
				return v["step"].(float64)
			}

			stop := make(chan struct{})
			l := runLoop(g, stop)
			defer func() {
				select {
				case <-stop:
				default:
					close(stop)
				}
			}()

			if code, v := call("GET", "/", ""); code != 200 || v["body"] != "the program's own page" {
				t.Errorf("the program's page: %d %v", code, v)
			}
			if code, v := call("GET", "/debug/", ""); code != 200 || !strings.Contains(v["body"].(string), "<script src=\"app.js\">") {
				t.Errorf("the view's page under /debug/: %d", code)
			}
			if code, _ := call("GET", "/debug/app.js", ""); code != 200 {
				t.Errorf("the page's script under /debug/: %d", code)
			}
			code, v := call("GET", "/debug/api/status", "")
			if code != 200 || v["paused"] != true || stepOf(v) != 0 {
				t.Fatalf("status at the start: %d %v", code, v)
			}
			if code, v = call("POST", "/debug/api/step", `{"steps":5}`); code != 200 || stepOf(v) != 5 {
				t.Fatalf("five steps: %d %v", code, v)
			}
			if l.held.Load() == 0 {
				t.Errorf("the loop never went on while the view held the game")
			}
			if _, v = call("GET", "/debug/api/agents", ""); len(v["agents"].([]any)) != 3 {
				t.Errorf("agents: %v", v)
			}
			if code, v = call("POST", "/debug/api/agents/guard-2/signal", `{"signal":"Alarm"}`); code != 200 {
				t.Errorf("signal: %d %v", code, v)
			}
			call("POST", "/debug/api/resume", "")
			for l.stepped.Load() < 12 {
				time.Sleep(time.Millisecond) // wait for the loop to run steps (no verdict on timing)
			}
			if code, v = call("POST", "/debug/api/pause", ""); code != 200 {
				t.Fatalf("pause: %d %v", code, v)
			}
			paused := stepOf(v)
			if paused < 12 {
				t.Errorf("paused at step %v, after the loop ran 12", paused)
			}
			if code, v = call("POST", "/debug/api/travel", `{"step":2}`); code != 200 || stepOf(v) != 2 {
				t.Errorf("travel back: %d %v", code, v)
			}
			if g.Step() != 2 {
				t.Errorf("the game is at step %d after travelling to 2", g.Step())
			}
			if code, v = call("POST", "/debug/api/reload", ""); code != 200 || reloads != 1 || !strings.Contains(fmt.Sprint(v["summary"]), "3 agents kept their place") {
				t.Errorf("reload from the view: %d %v", code, v)
			}
			if code, _ = call("POST", "/debug/api/quit", ""); code != 200 {
				t.Errorf("quit: %d", code)
			}
			// A loop that never ends after quit is a hang: go test's
			// -timeout reports it with this goroutine waiting here (no
			// verdict on how long the loop takes on a busy machine).
			if err := <-l.end; !errors.Is(err, game.ErrStopped) {
				t.Errorf("after quit, Advance returned %v, want ErrStopped", err)
			}
			close(stop)
		})
	}
}
