// Command embed is a small game that embeds btrun: its own loop, its own Go
// values for the guards, Go and Lua actions, a plugin of its own, the live
// view on its own web server, a save restored into a second game, and a
// hot reload. It uses only btrun's public packages. See README.md, and
// docs/embedding.md in the btrun repository, which walks through it.
//
//	go run .                        a short run that checks itself (exit 1 if not)
//	go run . -serve 127.0.0.1:7070  the courtyard at real time, with the live view at /bt/
package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
	"time"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/liveview"
	"github.com/btrun/btrun/runtime"
)

//go:embed ai
var sources embed.FS

func main() {
	frames := flag.Int("frames", 120, "frames to run (with -serve: 0 runs until Ctrl-C)")
	serve := flag.String("serve", "", "serve the program's page and the live view on this address, and run at real time")
	trace := flag.String("trace", "", "write btrun's trace (JSON Lines) to this file")
	workers := flag.Int("workers", 1, "step the guards on this many goroutines (0: one per core)")
	flag.Parse()
	if err := run(os.Stdout, settings{frames: *frames, serve: *serve, trace: *trace, workers: *workers}); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// settings are what main's flags set.
type settings struct {
	frames int
	serve  string // "" serves on a free port of 127.0.0.1, for the run's own check
	trace  string
	dir    string // where the save goes; "" a temporary folder
	// workers the guards step on (0: one per core). The game opens with
	// none and adds them: the setting, not the guards at Open, decides.
	workers int
}

// dt is the game time of a frame, in seconds.
const dt = 0.1

// courtyard is a running game: btrun's, and the program's own state.
type courtyard struct {
	g     *game.Game
	yard  *Courtyard
	units runtime.DataType[Unit] // what makes a *Unit an agent's data
}

// gameLog is the program's log of what the game does, at Debug to show
// every change of rule too: a line per record, without the wall time.
func gameLog(out io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		}}))
}

// open assembles the game from Go values: a config made in Go, the trees
// and scripts from the program's embedded files, the Go actions, the
// plugin, and two guards whose data is the program's units.
func open(out io.Writer, trace io.Writer, files fs.FS, workers int) (*courtyard, error) {
	cfg := game.NewConfig(".") // relative paths (the plugin's) are taken from the current folder
	cfg.Run.Dt = dt
	cfg.Run.Seed = 7
	cfg.Run.Workers = workers
	cfg.Scripts.Paths = []string{"ai"}
	cfg.Trees = []game.TreeConfig{{Name: "guard", File: "ai/guard.xml"}}
	cfg.Plugins = []game.PluginConfig{{Name: "sight", Path: "plugins/sight"}}
	units, err := runtime.DeclareData[Unit]() // reads Unit's bt tags, once
	if err != nil {
		return nil, err
	}
	c := &courtyard{yard: &Courtyard{Units: map[string]*Unit{}}, units: units}
	g, err := game.Open(cfg, game.Options{
		Files:    files,
		Register: register,
		// The game's lines (what each guard does, their log, errors) go to
		// the program's own log; without a Logger, Stdout or Stderr the
		// game prints nothing.
		Logger:  gameLog(out),
		TraceTo: trace,
		// A save holds the guards that were there when it was made; a
		// restore makes the game's guards those (AgentData gives the units
		// of the guards it adds).
		AgentsFromSave: true,
		AgentData: func(id, tree string) runtime.AgentData {
			if u := c.yard.Units[id]; u != nil {
				return units.Of(u)
			}
			return units.Of(c.yard.unit(id, 0, 0))
		},
		// The program's own work before each step, which the live view's
		// time travel replays with the step (so the steps it shows are the
		// ones the game had): the thief moves, and at steps 45 and 52
		// someone sees it and the alarm goes to every guard, with where
		// (a guard already searching goes there instead: search's handler).
		BeforeStep: func(g *game.Game, s game.StepInfo) error {
			c.yard.moveThief(int(s.Step))
			if s.Step != 45 && s.Step != 52 {
				return nil
			}
			c.yard.AlarmX, c.yard.AlarmY = c.yard.ThiefX, c.yard.ThiefY
			where := runtime.Table("x", c.yard.AlarmX, "y", c.yard.AlarmY)
			if !s.Replay { // the program's output is not the game's: once is enough
				fmt.Fprintf(out, "frame %d: alarm at (%.1f, %.1f)\n", s.Step, c.yard.AlarmX, c.yard.AlarmY)
			}
			return g.Signal("all", "Alarm", where)
		},
	})
	if err != nil {
		return nil, err
	}
	c.g = g
	if err := g.OpenTrace(); err != nil {
		g.Close()
		return nil, err
	}
	if err := g.Start(); err != nil {
		g.Close()
		return nil, err
	}
	for i, post := range [][2]float64{{2, 2}, {10, 6}} {
		id := fmt.Sprintf("guard-%d", i+1)
		if _, err := g.AddAgent(id, "guard", units.Of(c.yard.unit(id, post[0], post[1]))); err != nil {
			g.Close()
			return nil, err
		}
	}
	return c, nil
}

// frame runs the program's frame f: the program's events happen, btrun
// steps the guards (the thief moves and the alarm sounds in BeforeStep).
// Both games of the run (the original and the one restored from its save)
// run the same frames.
func (c *courtyard) frame(out io.Writer, f int) error {
	switch f {
	case 30: // reinforcements
		if _, err := c.g.AddAgent("guard-3", "guard", c.units.Of(c.yard.unit("guard-3", 6, 0))); err != nil {
			return err
		}
		fmt.Fprintf(out, "frame %d: guard-3 joins\n", f)
	case 80: // a designer made chasing faster: hot reload of the new script, from Go
		files := fstest.MapFS{}
		for _, name := range []string{"ai/guard.xml", "ai/guard.lua"} {
			data, err := fs.ReadFile(sources, name)
			if err != nil {
				return err
			}
			files[name] = &fstest.MapFile{Data: data}
		}
		files["ai/guard.lua"].Data = bytes.Replace(files["ai/guard.lua"].Data,
			[]byte(`params:number("chase.speed", 1)`), []byte(`2 * params:number("chase.speed", 1)`), 1)
		rep, err := c.g.Reload(game.ReloadOptions{Files: files, Changed: []string{"ai/guard.lua"}})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "frame %d: reloaded, %d guards kept their place\n", f, rep.Kept)
	case 100: // guard-2 goes off duty
		if err := c.g.RemoveAgent("guard-2"); err != nil {
			return err
		}
		fmt.Fprintf(out, "frame %d: guard-2 leaves\n", f)
	}
	if _, err := c.g.Advance(); err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(c.yard.Units)) {
		if u := c.yard.Units[id]; u.Caught {
			// The thief slips away: the guard is back at its post, where
			// its tree finds it next step (the unit is the tree's data).
			fmt.Fprintf(out, "frame %d: %s caught the thief at (%.1f, %.1f) (its catch number %d); it slips away\n", f, id, u.X, u.Y, len(u.Catches))
			u.Caught = false
			u.X, u.Y = u.PostX, u.PostY
		}
	}
	return nil
}

// run is the program: the courtyard for s.frames frames with the live view
// on the program's own server, a save at frame 60, and a second game that
// restores the save and runs the same frames, which must end in the same
// state as the first.
func run(out io.Writer, s settings) error {
	var trace io.Writer
	if s.trace != "" {
		f, err := os.Create(s.trace)
		if err != nil {
			return err
		}
		defer f.Close()
		trace = f
	}
	c, err := open(out, trace, sources, s.workers)
	if err != nil {
		return err
	}
	defer c.g.Close()

	// The live view, mounted on the program's own server under /bt/.
	view := liveview.New(c.g, liveview.Options{Embedded: true, Reload: c.g.ReloadAll})
	defer view.Close()
	mux := http.NewServeMux()
	mux.Handle("/bt/", http.StripPrefix("/bt", view.Handler()))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "The courtyard. Its guards' behavior trees: /bt/")
	})
	addr := s.serve
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Shutdown(context.Background())
	base := "http://" + ln.Addr().String()

	if s.serve != "" {
		fmt.Fprintf(out, "courtyard at %s/, its guards' trees at %s/bt/ (Ctrl-C ends)\n", base, base)
		return serveForever(out, c, s.frames)
	}

	dir := s.dir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "embed-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	savePath := filepath.Join(dir, "courtyard.save")
	const saveAt = 60
	var yardAt60 Courtyard // the program's own save: where the last alarm was
	// A browser asks the live view for the game's trees; the view answers
	// between two of the loop's steps (Advance serves its requests).
	asked := make(chan string, 1)
	go func() { asked <- ask(base + "/bt/api/trees") }()
	for f := 1; f <= s.frames; f++ {
		if err := c.frame(out, f); err != nil {
			return err
		}
		if f == saveAt {
			if err := c.g.Save(savePath); err != nil {
				return err
			}
			yardAt60 = *c.yard
			fmt.Fprintf(out, "frame %d: saved\n", f)
		}
	}
	if s.frames < saveAt {
		return nil
	}

	// A second game, as a new process would open it: its own units, then
	// the save, then the same frames.
	d, err := open(io.Discard, nil, sources, s.workers)
	if err != nil {
		return err
	}
	defer d.g.Close()
	d.yard.AlarmX, d.yard.AlarmY = yardAt60.AlarmX, yardAt60.AlarmY
	if _, err := d.g.Load(savePath); err != nil {
		return err
	}
	for f := saveAt + 1; f <= s.frames; f++ {
		if err := d.frame(io.Discard, f); err != nil {
			return err
		}
	}
	a, err := c.g.SaveState()
	if err != nil {
		return err
	}
	b, err := d.g.SaveState()
	if err != nil {
		return err
	}
	if !bytes.Equal(a, b) {
		return errors.New("the game restored from the save did not end as the original did")
	}
	fmt.Fprintf(out, "restored at frame %d and ran to frame %d: the same game, byte for byte\n", saveAt, s.frames)
	fmt.Fprintf(out, "the guards stepped on %d workers\n", c.g.Workers())
	for _, id := range []string{"guard-1", "guard-3"} {
		u := c.yard.Units[id]
		fmt.Fprintf(out, "%s at (%.2f, %.2f)\n", id, u.X, u.Y)
	}
	// The browser's answer came during the run, unless the machine is so
	// busy that its request is still on its way: the game goes on until it
	// is answered (the view times a request out after 10 s).
	for f := s.frames + 1; f <= s.frames+60000; f++ {
		select {
		case answer := <-asked:
			fmt.Fprintln(out, "live view:", answer)
			return nil
		default:
		}
		if err := c.frame(io.Discard, f); err != nil {
			return err
		}
		time.Sleep(time.Millisecond)
	}
	return errors.New("the live view never answered")
}

// ask is what a browser asks the live view: the game's trees, as JSON.
func ask(url string) string {
	resp, err := http.Get(url)
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var trees []struct {
		Name string `json:"name"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&trees); err != nil {
		return resp.Status + ": " + err.Error()
	}
	names := make([]string, len(trees))
	for i, t := range trees {
		names[i] = t.Name
	}
	return fmt.Sprintf("%s, trees %s", resp.Status, strings.Join(names, ", "))
}

// serveForever runs the courtyard at real time until Ctrl-C (or for frames
// frames when it is not 0).
func serveForever(out io.Writer, c *courtyard, frames int) error {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt)
	tick := time.NewTicker(time.Duration(dt * float64(time.Second)))
	defer tick.Stop()
	for f := 1; frames == 0 || f <= frames; f++ {
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
		if err := c.frame(out, f); err != nil {
			if errors.Is(err, game.ErrStopped) { // the live view's Quit button
				return nil
			}
			return err
		}
	}
	return nil
}
