package tests

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCluster_pageJumpThenReloadOfAGatedGame: the page jumps guard g-2,
// which holds gate "post", to its idle rule after step 12 (the jump
// releases the gate between two steps), and the inputs file reloads
// aim.lua after step 20. `btrun run -shards 2 -debug` applies the reload
// and writes one process's trace and save given the same jump and
// reload: with agents moving between the shards, with a shard killed after
// the jump (the run goes back to the checkpoint of step 0 and replays the
// jump from its journal), and with the conductor killed there and resumed.
// Before, only the guard's shard let the gate go: the conductor's copy of
// the gates refused a later take the shard granted, and the reload failed
// ("agent g-3: holds gate "post" by its rules but is not among the gate's
// holders").
func TestCluster_pageJumpThenReloadOfAGatedGame(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	out := t.TempDir()
	inputs := "gate-inputs.txt"
	dir, config := replayGame(t, map[string]string{inputs: "20 reload ai/aim.lua edits/aim-v2.lua\n"})
	moving := filepath.Join(dir, "moving.toml")
	cfg, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moving, append(cfg, "rebalance = true\n"...), 0o644); err != nil { // [cluster] is the last table
		t.Fatal(err)
	}
	args := func(tag, config string) []string {
		return []string{"run", "-config", config, "-steps", "40", "-inputs", filepath.Join(dir, inputs), "-debug", "127.0.0.1:0", "-paused",
			"-trace", filepath.Join(out, tag+".jsonl"), "-save", filepath.Join(out, tag+".sav")}
	}
	resetAim := func() {
		if err := os.WriteFile(filepath.Join(dir, "ai", "aim.lua"), []byte(reloadGame["ai/aim.lua"]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const reloadLine = "reload: ai/aim.lua: 9 agents kept their place"
	ok := func(r *liveRun, method, path, body string) {
		t.Helper()
		if code, b := r.call(method, path, body); code != http.StatusOK {
			t.Fatalf("%s %s: %d %s\n%s", method, path, code, b, r.all.String())
		}
	}
	one := startLiveRun(t, args("one", config)...)
	ok(one, "POST", "/api/step", `{"steps":12}`)
	ok(one, "POST", "/api/agents/g-2/jump", `{"rule":"idle"}`)
	ok(one, "POST", "/api/step", `{"steps":28}`)
	one.quit()
	if all := one.all.String(); !strings.Contains(all, reloadLine) || !strings.Contains(all, "g-2 jump -> idle (debugger)") || !strings.Contains(all, "v1 cancel at") {
		t.Fatalf("one process did not jump g-2 out of its aim and reload aim.lua: the test shows nothing\n%s", all)
	}
	trace, _ := os.ReadFile(filepath.Join(out, "one.jsonl"))
	save, _ := os.ReadFile(filepath.Join(out, "one.sav"))

	for _, c := range []struct {
		tag, config, fault, cost, back string
	}{
		{"plain", config, "", "", ""},
		{"moving", moving, "", "1:3", ""},
		{"lost", config, "shard0:report:16", "", "going back to the checkpoint of step 0 and replaying"},
		{"resumed", config, "conductor:step:15", "", ""},
	} {
		resetAim()
		a := append(args(c.tag, c.config), "-shards", "2", "-name", "gatejump-"+c.tag)
		var env []string
		if c.fault != "" {
			env = append(env, "BTRUN_TEST_FAULT="+c.fault)
		}
		if c.cost != "" {
			env = append(env, "BTRUN_TEST_COST="+c.cost)
		}
		r := startLiveRunEnv(t, env, a...)
		ok(r, "POST", "/api/step", `{"steps":12}`)
		ok(r, "POST", "/api/agents/g-2/jump", `{"rule":"idle"}`)
		if c.tag == "resumed" {
			r.try("POST", "/api/step", `{"steps":20}`) // the conductor is killed before step 15
			select {
			case <-r.done:
			case <-time.After(2 * time.Minute): // a hang guard only
				t.Fatal("the conductor was not killed")
			}
			r = startLiveRun(t, append(a, "-resume")...)
			if at := r.backAt(); at != 0 {
				t.Fatalf("the resumed run's live view is at step %d, want 0", at)
			}
			ok(r, "POST", "/api/step", `{"steps":40}`)
		} else if c.back != "" {
			r.try("POST", "/api/step", `{"steps":28}`) // cut short by the loss
			at := r.backAt()                           // where the run was, after its replay
			if at != 15 {
				t.Errorf("%s: the live view came back at step %d, want 15", c.tag, at)
			}
			ok(r, "POST", "/api/step", fmt.Sprintf(`{"steps":%d}`, 40-at))
		} else {
			ok(r, "POST", "/api/step", `{"steps":28}`)
		}
		r.quit()
		all := r.all.String()
		if n := strings.Count(all, reloadLine); n != 1 {
			t.Errorf("%s: the reload applied %d times, not once:\n%s", c.tag, n, all)
		}
		if c.back != "" && !strings.Contains(all, c.back) {
			t.Errorf("%s: no %q:\n%s", c.tag, c.back, all)
		}
		if c.cost != "" && !strings.Contains(all, " moves of ") {
			t.Errorf("%s: no agent moved:\n%s", c.tag, all)
		}
		sameFiles(t, c.tag, out, trace, save)
	}
}
