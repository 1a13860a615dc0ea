package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCluster_liveViewInABrowser: the live view of `btrun run -shards 2
// -debug`, in headless Chromium: the page lists the agents of both shards,
// each with its shard; it draws an agent of shard 1 (its card names the
// shard), pauses, steps, stops at a breakpoint set on a rule of that agent
// at the step one process's page stops at, and a signal sent from the
// page's form to another agent of shard 1 shows in the trace, which is one
// process's given the same clicks. Then a Lua file edited on disk and the
// page's Reload button reload the whole cluster: the page says what the
// reload did, and the agents run the edited script, as in one process.
func TestCluster_liveViewInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shard processes")
	}
	ctx := browser(t)
	game := exampleClusterCopy(t) // cluster_livereload_test.go: its Lua files are edited
	config := filepath.Join(game, "config.toml")
	dir := t.TempDir()
	stops := map[string]string{}
	for _, tag := range []string{"one", "two"} {
		writeFiles(t, game, map[string]string{"scripts/ai/medic.lua": medicLua(t, false)})
		args := []string{"run", "-config", config, "-steps", "300", "-debug", "127.0.0.1:0", "-paused",
			"-trace", filepath.Join(dir, tag+".jsonl")}
		if tag == "two" {
			args = append(args, "-shards", "2")
		}
		r := startLiveRun(t, args...)
		run := func(what string, actions ...chromedp.Action) {
			t.Helper()
			if err := runStep(ctx, actions...); err != nil {
				t.Fatalf("%s: %s: %v", tag, what, err)
			}
		}
		run("load the page",
			chromedp.EmulateViewport(1600, 1000),
			chromedp.Navigate(r.url),
			chromedp.WaitVisible(`#agents li[data-id="lookout-1"]`, chromedp.ByQuery),
			waitText("#runstate", "paused before the first step"))
		if tag == "two" {
			run("every shard's agents, with their shard",
				waitJS(`document.querySelectorAll('#agents li[data-id]').length === 16 &&
					document.querySelector('#agents li[data-id="grunt-1"]').title.startsWith('grunt-1 shard 0:') &&
					document.querySelector('#agents li[data-id="lookout-1"]').title.startsWith('lookout-1 shard 1:') &&
					document.querySelector('#agents li[data-id="medic-2"]').title.startsWith('medic-2 shard 1:')`))
		}
		run("draw an agent of shard 1",
			click(`#agents li[data-id="lookout-1"]`),
			waitText("#treetitle", "lookout-1"),
			chromedp.WaitVisible(`.node.cursor`, chromedp.ByQuery))
		if tag == "two" {
			run("its card names its shard", waitText("#agentcard", "shard 1 · step 0"))
		}
		run("step", click(`#step`), waitText("#stepno", "step 1 / 300"))
		run("resume and pause",
			click(`#pause`), waitText("#runstate", "running"),
			waitStep(r.url, 3),
			click(`#pause`), waitText("#runstate", "paused"))

		// A breakpoint on the lookout's pause in its watch, set with the
		// rule's dot; run as fast as the game can to it.
		var pause int
		run("find the rule", chromedp.Evaluate(`[...document.querySelectorAll('.node')].find(n => n.title.split('\n')[0].endsWith('.watch.pause')).dataset.rule * 1`, &pause))
		run("set the breakpoint",
			chromedp.Evaluate(fmt.Sprintf(`document.querySelector('.node[data-rule="%d"] .bp').click()`, pause), nil),
			chromedp.WaitVisible(fmt.Sprintf(`.node[data-rule="%d"] .bp.on`, pause), chromedp.ByQuery),
			waitText("#bps", ".watch.pause"))
		var state, step string
		run("run to the breakpoint",
			chromedp.SetValue(`#speed`, "fast", chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('#speed').dispatchEvent(new Event('change'))`, nil),
			click(`#pause`),
			waitText("#runstate", "breakpoint: lookout-1 arrived at"),
			waitCursor(pause),
			chromedp.Text("#runstate", &state, chromedp.ByQuery),
			chromedp.Text("#stepno", &step, chromedp.ByQuery))
		stops[tag] = state + " / " + step

		// A signal with data from the form, to another agent of shard 1,
		// then a step.
		run("send a signal",
			click(`#agents li[data-id="medic-2"]`),
			waitText("#treetitle", "medic-2"),
			sendKeys(`#signalname`, "OnHurt"),
			sendKeys(`#signaldata`, `{"who": "grunt-1", "x": 3, "y": 4}`),
			click(`#signalform button`),
			waitText("#toasts", "OnHurt sent to medic-2 with data"),
			waitText("#events", "OnHurt"))
		run("step after it", chromedp.KeyEvent("."), waitJS(`ui.status && ui.status.paused && ui.status.step === `+stepAfter(step)))
		shoot(ctx, t, "debug-cluster-"+tag+".png")

		// The medic's script edited on disk, then the Reload button: the
		// page says what the reload did and draws the agents again.
		writeFiles(t, game, map[string]string{"scripts/ai/medic.lua": medicLua(t, true)})
		run("reload",
			click(`#reload`),
			waitText("#toasts", "kept their place"),
			chromedp.WaitVisible(`#agents li[data-id="medic-2"]`, chromedp.ByQuery),
			waitJS(`ui.status && ui.status.reloads === 1`))
		_, list := r.call("GET", "/api/breakpoints", "")
		var bps []struct {
			ID int `json:"id"`
		}
		json.Unmarshal(list, &bps)
		for _, bp := range bps { // the steps after the reload run on
			r.call("DELETE", "/api/breakpoints/"+itoa(bp.ID), "")
		}
		if code, b := r.call("POST", "/api/step", `{"steps":200}`); code != http.StatusOK {
			t.Fatalf("%s: steps after the reload: %d %s", tag, code, b)
		}
		r.quit()
		for _, want := range []string{"reload: 16 agents kept their place", medicEdited} {
			if !strings.Contains(r.all.String(), want) {
				t.Errorf("%s: the output lacks %q: the test shows nothing\n%s", tag, want, r.all.String())
			}
		}
	}
	t.Logf("the breakpoint stopped both at %q", stops["one"])
	if stops["two"] != stops["one"] {
		t.Errorf("the breakpoint stopped the cluster at %q, one process at %q", stops["two"], stops["one"])
	}
	one, _ := os.ReadFile(filepath.Join(dir, "one.jsonl"))
	two, _ := os.ReadFile(filepath.Join(dir, "two.jsonl"))
	if !bytes.Contains(two, []byte(`"from":"debugger"`)) {
		t.Error("the cluster's trace does not show the page's signal")
	}
	if len(one) == 0 || !bytes.Equal(one, two) {
		t.Errorf("the cluster's trace differs from one process's (%d and %d bytes)", len(two), len(one))
	}
}

// stepAfter is the step after the one "step N / M" shows, in JavaScript.
func stepAfter(stepno string) string {
	var n, of int
	fmt.Sscanf(stepno, "step %d / %d", &n, &of)
	return itoa(n + 1)
}
