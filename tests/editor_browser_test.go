package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// The tree editor in a real browser (headless Chromium, chromedp) against
// `btrun run -debug 127.0.0.1:0 -edit` on a copy of the example game in a
// temporary folder: open grunt's tree, make an action's name a typo and
// see the problem at its rule, fix it with completion, drag a rule to
// another parent, change a parameter with completion, save, and see the
// running agents take the change with their state; then undo, save again,
// open the source and a subtree file in its own tab, and quit. With
// -screenshots it writes docs/debug-edit*.png.

// editedGame is a btrun run on a copy of the example game.
type editedGame struct {
	url string
	dir string // the copy's folder
	cmd *exec.Cmd
}

// exampleCopy copies the example game's config and scripts to a temporary
// folder (the nav plugin stays where it is: its path is made absolute).
func exampleCopy(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyDir(t, filepath.Join(repo, "scripts"), filepath.Join(dir, "scripts"))
	cfg, err := os.ReadFile(filepath.Join(repo, "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	nav := `path = "` + filepath.ToSlash(filepath.Join(repo, "plugins", "nav")) + `"`
	writeFiles(t, dir, map[string]string{"config.toml": strings.Replace(string(cfg), `path = "plugins/nav"`, nav, 1)})
	return dir
}

// startEdited runs btrun -debug -edit on a copy of the example game.
func startEdited(t *testing.T, args ...string) *editedGame {
	t.Helper()
	g := &editedGame{dir: exampleCopy(t)}
	g.url, g.cmd = startLive(t, append([]string{"run", "-debug", "127.0.0.1:0", "-edit", "-quiet", "-config", filepath.Join(g.dir, "config.toml")}, args...)...)
	return g
}

// waitExit waits for btrun to exit after what (asked at asked), and says
// how long it took.
func (g *editedGame) waitExit(t *testing.T, exited <-chan time.Time, asked time.Time, what string) {
	t.Helper()
	// A btrun that never exits is a hang: go test's -timeout reports it
	// with this goroutine waiting here (no verdict on how long the exit
	// takes on a busy machine; the time is only logged).
	at := <-exited
	t.Logf("btrun exited %v after %s", at.Sub(asked).Round(time.Millisecond), what)
	if code := g.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("btrun exited with %d", code)
	}
}

// stepper is a test's step runner: it runs a named step's actions in the
// tab of ctx (runStep) and fails the test with what the page showed; the
// step's duration is only logged.
func stepper(t *testing.T, ctx context.Context) func(what string, actions ...chromedp.Action) {
	return func(what string, actions ...chromedp.Action) {
		t.Helper()
		begin := time.Now()
		if err := runStep(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %v", what, time.Since(begin).Round(time.Millisecond))
	}
}

// runStep runs actions within a minute; when they fail, it says what the
// page showed then (its text, and a screenshot in the temporary folder).
func runStep(ctx context.Context, actions ...chromedp.Action) error {
	if err := chromedp.Run(ctx); err != nil { // the tab belongs to ctx, not to the step's
		return err
	}
	step, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err := chromedp.Run(step, actions...)
	if err == nil {
		return nil
	}
	var png []byte
	var text string
	if chromedp.Run(ctx, chromedp.CaptureScreenshot(&png), chromedp.Evaluate(`document.body.innerText.slice(0, 3000)`, &text)) == nil {
		shot := filepath.Join(os.TempDir(), "btrun-editor-failed.png")
		os.WriteFile(shot, png, 0o644)
		return fmt.Errorf("%w\nthe page (screenshot %s):\n%s", err, shot, text)
	}
	return err
}

// waitJS waits until a JavaScript expression is true.
func waitJS(expr string) chromedp.Action {
	return chromedp.Poll(expr, nil, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second))
}

// center returns the middle of an element (left part for wide ones).
func center(ctx context.Context, sel string) (float64, float64, error) {
	var xy []float64
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null; e.scrollIntoView({block: 'nearest'}); const r = e.getBoundingClientRect(); return [r.left + Math.min(60, r.width / 2), r.top + r.height / 2]; })()`, sel)
	if err := chromedp.Evaluate(js, &xy).Do(ctx); err != nil {
		return 0, 0, err
	}
	if len(xy) != 2 {
		return 0, 0, fmt.Errorf("no element %s", sel)
	}
	return xy[0], xy[1], nil
}

// drag drags the element from with the mouse (pressed, moved in steps,
// released) onto the element to, which is looked up once the drag began
// (drop zones open up then).
func drag(from, to string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		x, y, err := center(ctx, from)
		if err != nil {
			return err
		}
		mouse := func(typ input.MouseType, x, y float64) error {
			ev := input.DispatchMouseEvent(typ, x, y).WithButton(input.Left).WithButtons(1).WithClickCount(1)
			if typ == input.MouseReleased {
				ev = ev.WithButtons(0)
			}
			return ev.Do(ctx)
		}
		if err := mouse(input.MousePressed, x, y); err != nil {
			return err
		}
		for i := 1; i <= 3; i++ {
			if err := mouse(input.MouseMoved, x+float64(4*i), y+float64(4*i)); err != nil {
				return err
			}
		}
		tx, ty, err := center(ctx, to)
		if err != nil {
			return err
		}
		sx, sy := x+12, y+12
		for i := 1; i <= 12; i++ {
			f := float64(i) / 12
			if err := mouse(input.MouseMoved, sx+(tx-sx)*f, sy+(ty-sy)*f); err != nil {
				return err
			}
		}
		return mouse(input.MouseReleased, tx, ty)
	})
}

// setField types a value into an inspector field and commits it.
func setField(sel, value string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`(() => { const i = document.querySelector(%q); i.value = %q; i.dispatchEvent(new Event('change')); return true })()`, sel, value), nil)
}

type agentState struct {
	ID   string          `json:"id"`
	Rule string          `json:"rule"`
	Step int             `json:"step"`
	Vars json.RawMessage `json:"vars"`
	Ctx  json.RawMessage `json:"ctx"`
}

func TestEditor_inABrowser(t *testing.T) {
	g := startEdited(t, "-paused", "-steps", "100000") // first: it may build the nav plugin
	ctx := browser(t)
	run := stepper(t, ctx)
	grunt := filepath.Join(g.dir, "scripts", "ai", "grunt.xml")
	original, err := os.ReadFile(grunt)
	if err != nil {
		t.Fatal(err)
	}
	// Step 75: grunt-1 chases the player in its parallel's lanes, with
	// memory and variables a reload must keep.
	resp, err := http.Post(g.url+"api/step", "application/json", strings.NewReader(`{"steps":75}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	grunts := func() []agentState {
		var out []agentState
		for _, id := range []string{"grunt-1", "grunt-2", "grunt-3"} {
			var a agentState
			getJSON(t, g.url+"api/agents/"+id, &a)
			out = append(out, a)
		}
		return out
	}
	before := grunts()
	if before[0].Rule != "grunt.attack.close" {
		t.Fatalf("at step 75 grunt-1 is at %s, not in its attack's parallel", before[0].Rule)
	}

	run("open grunt's tree",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		chromedp.WaitVisible(`#editopen`, chromedp.ByQuery),
		click(`#editopen`),
		chromedp.WaitVisible(`#editor .erule[data-label="grunt.attack.close.chase"]`, chromedp.ByQuery),
		waitText("#edcount", "no problems"))
	shoot(ctx, t, "debug-edit.png")

	patrol := `.erule[data-label="grunt.idle.patrol"]`
	run("misspell an action",
		click(patrol+` > .ehead`),
		chromedp.WaitVisible(`#edinsp input[data-attr="name"]`, chromedp.ByQuery),
		setField(`#edinsp input[data-attr="name"]`, "patrl"),
		chromedp.WaitVisible(patrol+`.has-error`, chromedp.ByQuery),
		waitText(patrol+` > .ehead .eprob`, "✖ 1"),
		waitText("#edproblems", `grunt.idle.patrol: unknown action "patrl"`),
		waitText("#edinspprobs", `did you mean "patrol"?`))
	shoot(ctx, t, "debug-edit-problem.png")

	run("fix it with completion",
		click(`#edinsp input[data-attr="name"]`),
		chromedp.Evaluate(`document.querySelector('#edinsp input[data-attr="name"]').select()`, nil),
		sendKeys(`#edinsp input[data-attr="name"]`, "patr"),
		chromedp.WaitVisible(`#edcomplete .citem[data-name="patrol"]`, chromedp.ByQuery),
		click(`#edcomplete .citem[data-name="patrol"]`),
		waitJS(`!document.querySelector('`+patrol+`').classList.contains('has-error')`),
		waitText("#edcount", "no problems"))

	run("drag a rule to another parent",
		drag(`.erule[data-label="grunt.investigate.say"] > .ehead`, `.edrop[data-parent="grunt.idle"][data-index="2"]`),
		chromedp.WaitVisible(`.erule[data-label="grunt.idle"] > .ekids > .erule[data-label="grunt.idle.say"]`, chromedp.ByQuery),
		waitJS(`!document.querySelector('.erule[data-label="grunt.investigate.say"]')`))

	look := `.erule[data-label="grunt.idle.look"]`
	run("change a parameter with completion",
		click(look+` > .ehead`),
		chromedp.WaitVisible(`#ednewparam`, chromedp.ByQuery),
		click(`#ednewparam`),
		sendKeys(`#ednewparam`, "wait"),
		chromedp.WaitVisible(`#edcomplete .citem[data-name="wait.seconds"]`, chromedp.ByQuery),
		waitText(`#edcomplete .citem[data-name="wait.seconds"]`, "seconds"))
	shoot(ctx, t, "debug-edit-completion.png")
	run("pick wait.seconds and set it",
		click(`#edcomplete .citem[data-name="wait.seconds"]`),
		sendKeys(`#ednewvalue`, "2"),
		click(`#edaddparam`),
		waitText(look+` > .ehead .sub`, "wait.seconds: 2"),
		waitJS(`document.querySelector('.edtab.on').classList.contains('dirty')`))

	run("save and apply",
		click(`#edsave`),
		waitText("#edresult", "Saved scripts/ai/grunt.xml and applied at step 75"),
		waitText("#edresult", "16 agents kept their place"),
		waitText("#edresult", "0 restarted"),
		waitJS(`!document.querySelector('.edtab.on').classList.contains('dirty')`))
	shoot(ctx, t, "debug-edit-saved.png")

	// The running game took the change, and every grunt kept its state.
	after := grunts()
	for i := range before {
		if after[i].Rule != before[i].Rule || after[i].Step != before[i].Step || string(after[i].Vars) != string(before[i].Vars) || string(after[i].Ctx) != string(before[i].Ctx) {
			t.Errorf("%s did not keep its state:\nbefore %+v\nafter  %+v", before[i].ID, before[i], after[i])
		}
	}
	var tree struct {
		Rules []struct {
			Label  string     `json:"label"`
			Parent int        `json:"parent"`
			Params [][]string `json:"params"`
		} `json:"rules"`
	}
	getJSON(t, g.url+"api/trees/grunt", &tree)
	param := func(label, name string) string {
		for _, r := range tree.Rules {
			if r.Label == label {
				for _, p := range r.Params {
					if p[0] == name {
						return p[1]
					}
				}
			}
		}
		return ""
	}
	hasRule := func(label string) bool {
		for _, r := range tree.Rules {
			if r.Label == label {
				return true
			}
		}
		return false
	}
	if param("grunt.idle.look", "wait.seconds") != "2" || !hasRule("grunt.idle.say") || hasRule("grunt.investigate.say") {
		t.Errorf("the game does not run the saved tree: %+v", tree)
	}
	saved, err := os.ReadFile(grunt)
	if err != nil {
		t.Fatal(err)
	}
	sayLine := "      <action id=\".say\" name=\"bt.log\"><parameter name=\"log.message\">back to my post</parameter></action>\n"
	want := strings.Replace(string(original), sayLine, "", 1)
	want = strings.Replace(want, "        <parameter name=\"wait.seconds\">1.5</parameter>\n      </action>\n    </choice>\n",
		"        <parameter name=\"wait.seconds\">2</parameter>\n      </action>\n"+sayLine+"    </choice>\n", 1)
	if string(saved) != want {
		t.Errorf("the file holds more than the edits:\n%s", saved)
	}

	run("undo the parameter's change, save again",
		click(`#edundo`),
		waitText(look+` > .ehead .sub`, "wait.seconds: 1.5"),
		waitJS(`document.querySelector('.edtab.on').classList.contains('dirty')`),
		chromedp.WaitVisible(`.erule[data-label="grunt.idle.say"]`, chromedp.ByQuery),
		click(`#edsave`),
		waitText("#edresult", "16 agents kept their place"),
		waitJS(`!document.querySelector('.edtab.on').classList.contains('dirty')`))
	getJSON(t, g.url+"api/trees/grunt", &tree)
	if param("grunt.idle.look", "wait.seconds") != "1.5" || !hasRule("grunt.idle.say") {
		t.Errorf("after undo and save the game runs: %+v", tree)
	}
	run("redo and undo again",
		click(`#edredo`),
		waitText(look+` > .ehead .sub`, "wait.seconds: 2"),
		click(`#edundo`),
		waitText(look+` > .ehead .sub`, "wait.seconds: 1.5"))

	run("the source",
		click(`#edvsource`),
		chromedp.WaitVisible(`#edsource`, chromedp.ByQuery),
		waitJS(`document.querySelector('#edsource').value.includes('<action id=".patrol" name="patrol">')`))
	shoot(ctx, t, "debug-edit-source.png")

	run("close the editor, pick a courier",
		click(`#edclose`),
		click(`#agents li[data-id="courier-1"]`),
		waitText("#treetitle", "courier-1"))
	run("edit courier's tree",
		click(`#editopen`),
		chromedp.WaitVisible(`.erule[data-label="courier.rounds.pickup"]`, chromedp.ByQuery))
	run("open a subtree file in its own tab",
		click(`.erule[data-label="courier.rounds.pickup"] .eopen`),
		chromedp.WaitVisible(`.edtab.on[data-file="scripts/ai/leg.xml"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.erule[data-label="go"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.erule[data-label="handOver"]`, chromedp.ByQuery))

	// Quit from the page: the run ends (and btrun exits) at once.
	ended := make(chan time.Time, 1)
	run("quit",
		click(`#quit`),
		chromedp.WaitVisible(`#confirmyes`, chromedp.ByQuery),
		chromedp.ActionFunc(func(context.Context) error {
			go func() { g.cmd.Wait(); ended <- time.Now() }()
			return nil
		}),
		click(`#confirmyes`))
	g.waitExit(t, ended, time.Now(), "the page's Quit")
}

// TestEditor_linksAndFit: #agent=ID and #tree=NAME open the page on an
// agent or a tree, and a tree fits the view when opened: at 1400 px,
// grunt's parallel lanes and courier's deepest rules are inside the
// view's right edge.
func TestEditor_linksAndFit(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	inside := func(what string) {
		t.Helper()
		var out []float64
		run("measure "+what, chromedp.Evaluate(`(() => {
			const w = document.querySelector('#canvaswrap').getBoundingClientRect();
			const right = Math.max(...[...document.querySelectorAll('#canvas .node')].map((n) => n.getBoundingClientRect().right));
			return [right, w.right, document.querySelectorAll('#canvas .node').length];
		})()`, &out))
		if len(out) != 3 || out[2] == 0 || out[0] > out[1] || math.IsNaN(out[0]) {
			t.Errorf("%s: the tree's right edge is at %v, the view's at %v (%v rules)", what, out[0], out[1], out[2])
		}
	}
	run("an agent's link",
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(g.url+"#agent=grunt-2"),
		waitText("#treetitle", "grunt-2"),
		chromedp.WaitVisible(`#agents li.selected[data-id="grunt-2"]`, chromedp.ByQuery))
	inside("grunt at 1400 px")
	run("a tree's link",
		chromedp.Navigate(g.url+"#tree=courier"),
		chromedp.Reload(),
		waitText("#treetitle", "courier"),
		waitText("#treetitle", "pick one to see its state"))
	inside("courier at 1400 px")
	var selected []string
	run("no agent chosen", chromedp.Evaluate(`[...document.querySelectorAll('#agents li.selected')].map((l) => l.dataset.id)`, &selected))
	if len(selected) != 0 {
		t.Errorf("a tree's link chose agents %v", selected)
	}
	run("the editor from a link",
		chromedp.Navigate(g.url+"#tree=wanderer&edit"),
		chromedp.Reload(),
		chromedp.WaitVisible(`#editor .edtab.on[data-file="scripts/ai/dragengine-exampleapp.xml"]`, chromedp.ByQuery),
		waitText("#edtree", "ISO-8859-1"))
	var labels []string
	run("wanderer's rules", chromedp.Evaluate(`[...document.querySelectorAll('#edtree .erule')].map((r) => r.dataset.label)`, &labels))
	if len(labels) != 7 || !reflect.DeepEqual(labels[:2], []string{"root", "wander"}) {
		t.Errorf("the editor shows %v", labels)
	}
}

// TestEditor_stateMachineShowsItsStates: the editor draws a state
// machine's states themselves, each with its transitions and its rule
// under it, the initial one marked (issue 43).
func TestEditor_stateMachineShowsItsStates(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("the lookout's tree in the editor",
		chromedp.EmulateViewport(1400, 900),
		chromedp.Navigate(g.url+"#tree=lookout&edit"),
		chromedp.Reload(),
		chromedp.WaitVisible(`#editor .edtab.on[data-file="scripts/ai/lookout.xml"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#edtree .erule[data-label="lookout"]`, chromedp.ByQuery))
	var states []string
	run("its states", chromedp.Evaluate(`[...document.querySelectorAll('#edtree .erule[data-label="lookout"] > .ekids > .estate')].map((s) =>
		s.querySelector('.eshead b').textContent + (s.classList.contains('initial') ? '*' : '') + ' | ' +
		[...s.querySelectorAll(':scope > .eshead .sub')].map((x) => x.textContent).join(' | ') + ' | ' +
		s.querySelector(':scope > .erule').dataset.label)`, &states))
	want := []string{
		"Watch* | initial | on OnEnemySeen → Alert | lookout.watch",
		"Alert | on OnLostSightOfTarget → Search · on success → Alert | lookout.backOff",
		"Search | on OnEnemySeen → Alert · on success → Watch · on failure → Watch | lookout.search",
	}
	if !reflect.DeepEqual(states, want) {
		t.Errorf("states drawn:\n%s\nwant:\n%s", strings.Join(states, "\n"), strings.Join(want, "\n"))
	}
}
