package main

import (
	"testing"

	"github.com/btrun/btrun/cluster"
)

// TestInputFeedSkip_passesByOnlyTheLinesJournaled: a resumed run's inputs
// file goes on after the lines its journal holds, and only those. The
// journal also holds inputs no line is (the page's jump, a reload -watch
// journaled and whose checkpoint the lost conductor did not take): they
// pass no line by, and a file's reload line is passed by only when the
// journaled reload is that line's (what it reloaded). Before, a page's
// input passed every later line by, and -watch's reload the file's reload
// line of its step: those lines were never applied.
func TestInputFeedSkip_passesByOnlyTheLinesJournaled(t *testing.T) {
	reload := func(step uint64, changed []string, plugins []string) cluster.Input {
		data, err := cluster.EncodeReload(&cluster.ReloadManifest{Config: "config.toml", Changed: changed, Plugins: plugins})
		if err != nil {
			t.Fatal(err)
		}
		return cluster.Input{Step: step, Kind: cluster.InputReload, Data: data}
	}
	var ins []runInput
	for _, line := range []string{"5 signal all Ping", "12 reload ai/g.xml edits/g.xml", "12 signal g-1 Ping", "20 reload", "30 signal all Ping"} {
		in, err := parseInput(line)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, in)
	}
	signal := func(step uint64, to string) cluster.Input {
		return cluster.Input{Step: step, Kind: cluster.InputSignal, To: to, Name: "Ping"}
	}
	jump := cluster.Input{Step: 6, Kind: cluster.InputDebugJump, To: "g-2", Name: "idle"}
	for _, c := range []struct {
		name      string
		from      uint64
		journaled []cluster.Input
		next      int // the first line the resumed run sends
	}{
		{"the page's jump after a line", 0, []cluster.Input{signal(5, "all"), jump}, 1},
		{"the page's jump first", 0, []cluster.Input{jump}, 0},
		{"-watch's reload of another file", 12, []cluster.Input{reload(12, []string{"ai/aim.lua"}, nil)}, 1},
		{"the line's reload", 12, []cluster.Input{reload(12, []string{"ai/g.xml"}, nil)}, 2},
		{"the line's reload, then its step's signal", 12, []cluster.Input{reload(12, []string{"ai/g.xml"}, nil), signal(12, "g-1")}, 3},
		{"the page's reload of the plugins", 20, []cluster.Input{reload(20, nil, []string{"nav"})}, 3},
		{"a bare reload", 20, []cluster.Input{reload(20, nil, nil)}, 4},
	} {
		f := &inputFeed{ins: ins}
		f.skip(c.from, false, c.journaled)
		if f.next != c.next {
			t.Errorf("%s: the resumed run sends from line %d, not %d", c.name, f.next+1, c.next+1)
		}
	}
}
