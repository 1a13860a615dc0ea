package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Issue 40's replay beyond one run: `btrun view FILE` opens the page on a
// trace (the run replayed to its last step, every step on the time slider,
// each showing what the trace says) or on a save (paused at its step), and
// a trace the config no longer repeats stops at the step where it departs.
// Driven by the keys: [ travels back, ] forward, . steps.
func TestView_aTraceAndASaveInTheBrowser(t *testing.T) {
	dir := exampleCopy(t)
	config := filepath.Join(dir, "config.toml")
	trace, save := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "run.sav")
	if r := run(t, "", "run", "-config", config, "-steps", "40", "-trace", trace, "-save", save, "-quiet"); r.code != 0 {
		t.Fatalf("btrun run: %d %s", r.code, r.stderr)
	}
	text, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// cursorAt is grunt-1's cursor after step s, as the trace says.
	cursorAt := func(s int) string {
		cur := ""
		for _, l := range strings.Split(string(text), "\n") {
			var line struct {
				Step   int    `json:"step"`
				Agent  string `json:"agent"`
				Cursor string `json:"cursor"`
			}
			if json.Unmarshal([]byte(l), &line) == nil && line.Agent == "grunt-1" && line.Step <= s && line.Cursor != "" {
				cur = line.Cursor
			}
		}
		return cur
	}
	url, _ := startLive(t, "view", "-config", config, "-debug", "127.0.0.1:0", trace)
	ctx := browser(t)
	step := func(n int) chromedp.Action {
		return waitJS(`ui.status && ui.status.step === ` + itoa(n) + ` && ui.agent && ui.agent.step === ` + itoa(n))
	}
	showsCursor := func(s int) chromedp.Action {
		return waitJS(`ui.agent.rule === ` + jsString(cursorAt(s)))
	}
	if err := runStep(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		step(40), showsCursor(40),
		waitJS(`ui.status.paused && ui.status.atEnd && Number(document.querySelector('#slider').max) === 40`),
	); err != nil {
		t.Fatalf("the trace's last step: %v", err)
	}
	for _, s := range []int{39, 38, 37} {
		if err := runStep(ctx, chromedp.KeyEvent("["), step(s), showsCursor(s)); err != nil {
			t.Fatalf("[ to step %d: %v", s, err)
		}
	}
	shoot(ctx, t, "debug-view-trace.png")
	if err := runStep(ctx, chromedp.KeyEvent("]"), step(38), showsCursor(38)); err != nil {
		t.Fatalf("] to step 38: %v", err)
	}

	// The trace changed at one of step 13's lines: the config no longer
	// writes it, and the page stops at step 13.
	lines := strings.Split(string(text), "\n")
	k := -1
	for i, l := range lines {
		if strings.HasPrefix(l, `{"step":13,`) && strings.Contains(l, `"agent":"grunt-1"`) {
			k = i
		}
	}
	if k < 0 {
		t.Fatal("no line of grunt-1 at step 13")
	}
	lines[k] = strings.Replace(lines[k], `"agent":"grunt-1"`, `"agent":"grunt-1","note":"edited"`, 1)
	changed := filepath.Join(dir, "changed.jsonl")
	if err := os.WriteFile(changed, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	url2, _ := startLive(t, "view", "-config", config, "-debug", "127.0.0.1:0", changed)
	if err := runStep(ctx, chromedp.Navigate(url2+"#agent=grunt-1"), step(13), showsCursor(13),
		waitJS(`ui.status.paused && ui.status.end === 13`)); err != nil {
		t.Fatalf("a changed trace: %v", err)
	}

	// A save: paused at its step; . steps on from there.
	url3, _ := startLive(t, "view", "-config", config, "-debug", "127.0.0.1:0", save)
	if err := runStep(ctx, chromedp.Navigate(url3+"#agent=grunt-1"), step(40), showsCursor(40),
		waitJS(`ui.status.paused && ui.status.first === 40`),
		chromedp.KeyEvent("."), step(41)); err != nil {
		t.Fatalf("a save: %v", err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func jsString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestView_timeTravelKeepsTheStepsBeforeASave: after a save from the
// editor the slider still reaches the steps before it, marked at the save;
// [ goes back to them (the trees as they were, to look at) and ] forward.
func TestView_timeTravelKeepsTheStepsBeforeASave(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := runStep(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	at := func(n int) chromedp.Action { return waitJS(`ui.status && ui.status.step === ` + itoa(n)) }
	run("three steps, then an edit saved",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		chromedp.KeyEvent("."), at(1), chromedp.KeyEvent("."), at(2), chromedp.KeyEvent("."), at(3),
		click(`#editopen`),
		click(`.erule[data-label="grunt.idle.patrol"] > .ehead`),
		chromedp.WaitVisible(`#edinsp input[data-param="patrol.radius"]`, chromedp.ByQuery),
		setField(`#edinsp input[data-param="patrol.radius"]`, "6"),
		waitJS(`ed.cur.source.includes('<parameter name="patrol.radius">6</parameter>')`),
		click(`#edsave`),
		waitText("#edresult", "Saved scripts/ai/grunt.xml"),
		click(`#edclose`),
		waitJS(`!document.body.classList.contains('editing')`),
		chromedp.KeyEvent("."), at(4), chromedp.KeyEvent("."), at(5),
		waitJS(`ui.status.timeTravel.edits.join() === '3' && document.querySelectorAll('#travelmarks .editmark[data-step="3"]').length === 1`))
	run("[ back across the save: the old trees, marked",
		chromedp.KeyEvent("["), at(4), chromedp.KeyEvent("["), at(3),
		waitJS(`!document.body.classList.contains('oldtrees')`),
		chromedp.KeyEvent("["), at(2),
		waitJS(`document.body.classList.contains('oldtrees')`),
		waitText("#travelinfo", "before the save after step 3: the trees as they were then"),
		// The mark sits on the slider's track, at step 3 of 0..5.
		waitJS(`(() => { const m = document.querySelector('#travelmarks .editmark').getBoundingClientRect(), s = document.querySelector('#slider').getBoundingClientRect(); return Math.abs(m.left + 1 - (s.left + s.width * 3 / 5)) < 12 && m.top >= s.top - 8 && m.bottom <= s.bottom + 8 })()`))
	shoot(ctx, t, "debug-timetravel-save.png")
	run("] forward again, and Back to live",
		chromedp.KeyEvent("]"), at(3),
		waitJS(`!document.body.classList.contains('oldtrees')`),
		click(`#live`), at(5))
	got, err := os.ReadFile(filepath.Join(g.dir, "scripts", "ai", "grunt.xml"))
	if err != nil || !strings.Contains(string(got), `"patrol.radius">6<`) {
		t.Errorf("the saved file: %v", err)
	}
}

// TestView_openASaveFromThePage: Open save in the time travel bar lists the
// save files beside the config; the chosen one is loaded into the running
// game, whose time travel then starts at the save's step.
func TestView_openASaveFromThePage(t *testing.T) {
	g := startEdited(t, "-paused")
	if r := run(t, "", "run", "-config", filepath.Join(g.dir, "config.toml"), "-steps", "20", "-save", filepath.Join(g.dir, "run.sav"), "-quiet"); r.code != 0 {
		t.Fatalf("btrun run: %d %s", r.code, r.stderr)
	}
	ctx := browser(t)
	at := func(n int) chromedp.Action { return waitJS(`ui.status && ui.status.step === ` + itoa(n)) }
	if err := runStep(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		chromedp.KeyEvent("."), at(1), chromedp.KeyEvent("."), at(2),
		click(`#opensave`),
		chromedp.WaitVisible(`#saveform`, chromedp.ByQuery),
		waitJS(`[...document.querySelectorAll('#savelist option')].map((o) => o.value).join() === 'run.sav'`),
	); err != nil {
		t.Fatalf("the list of saves: %v", err)
	}
	shoot(ctx, t, "debug-open-save.png")
	if err := runStep(ctx,
		click(`#saveopen`),
		at(20),
		waitJS(`ui.status.first === 20 && ui.agent && ui.agent.step === 20 && document.querySelector('#saveform').hidden`),
		chromedp.KeyEvent("."), at(21),
		chromedp.KeyEvent("["), at(20),
		waitJS(`Number(document.querySelector('#slider').min) === 20`),
	); err != nil {
		t.Fatalf("open the save: %v", err)
	}
}
