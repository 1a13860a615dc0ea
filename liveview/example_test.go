package liveview_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/liveview"
)

// Example_embedded mounts the live view on a program's own server, under
// /bt/, for a game the program steps from its own loop: the view's
// requests are served between the steps the loop runs.
func Example_embedded() {
	cfg, err := game.LoadConfig("testdata/guards/config.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	g, err := game.Open(cfg, game.Options{Quiet: true, Stdout: io.Discard})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer g.Close()
	g.Start()

	view := liveview.New(g, liveview.Options{Embedded: true}) // attached to g from its next step
	defer view.Close()
	mux := http.NewServeMux() // the program's own server
	mux.Handle("/bt/", http.StripPrefix("/bt", view.Handler()))
	srv := httptest.NewServer(mux) // a program: http.ListenAndServe("127.0.0.1:8080", mux)
	defer srv.Close()

	answer := make(chan map[string]any)
	go func() { // a browser asks while the program's loop runs
		resp, err := http.Get(srv.URL + "/bt/api/status")
		if err != nil {
			answer <- map[string]any{"error": err.Error()}
			return
		}
		defer resp.Body.Close()
		var status map[string]any
		json.NewDecoder(resp.Body).Decode(&status)
		answer <- status
	}()
	for {
		if _, err := g.Advance(); err != nil { // the program's loop
			fmt.Println(err)
			return
		}
		select {
		case status := <-answer:
			fmt.Println("paused:", status["paused"], "agents:", status["agents"])
			return
		default:
		}
	}
	// Output:
	// paused: false agents: 3
}
