package tests

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
)

// The live view in a real browser: headless Chromium, driven by chromedp,
// against `btrun run -debug 127.0.0.1:0` (the real binary). With
// -screenshots the test also writes the docs' pictures of the page
// (docs/debug-*.png): go test ./tests -run TestLiveView -screenshots

var screenshots = flag.Bool("screenshots", false, "write the live view's screenshots under docs/")

// chromium returns the browser to drive, failing the test in CI (CI is set)
// when there is none: .ci/run installs Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium to drive (apt-get install chromium; .ci/run does it)")
	}
	t.Skip("no Chromium installed (apt-get install chromium)")
	return ""
}

// liveView starts btrun with the live view on a free port and returns the
// page's address; the process ends with the test.
func liveView(t *testing.T, args ...string) string {
	t.Helper()
	url, _ := startLive(t, append([]string{"run", "-debug", "127.0.0.1:0", "-quiet"}, args...)...)
	return url
}

// startLive starts btrun with args (which serve the live view) and returns
// the page's address, once btrun said it, and the process, which ends with
// the test.
func startLive(t *testing.T, args ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := command(args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	select {
	case url := <-liveViewURL(out):
		return url, cmd
	case <-time.After(10 * time.Minute): // a hang guard: the first run builds the nav plugin
		t.Fatal("btrun did not say where the live view is")
	}
	return "", nil
}

// liveViewURL reads btrun's output for people until it says where the
// live view is, and delivers that address; it reads the rest of the output
// to its end (so that btrun never blocks writing it).
func liveViewURL(out io.Reader) <-chan string {
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`live view at (http://\S+)`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, out)
	}()
	return found
}

// stepPaused steps the paused game of the live view at url n steps (the
// request answers once they have run).
func stepPaused(t *testing.T, url string, n int) {
	t.Helper()
	resp, err := http.Post(url+"api/step", "application/json", strings.NewReader(fmt.Sprintf(`{"steps":%d}`, n)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST api/step: %s", resp.Status)
	}
}

// browser starts headless Chromium with a fresh profile and the flags that
// keep it off the network.
//
// Chromium now and then crashes as it starts on a busy machine ("chrome
// failed to start", its crash handler's lines on standard error; seen once
// in CI among a dozen browser tests that started): that is not the page
// under test, so a start that fails so is tried again, twice at most.
func browser(t *testing.T) context.Context {
	t.Helper()
	var err error
	for range 3 {
		var ctx context.Context
		if ctx, err = startBrowser(t); err == nil {
			return ctx
		}
		t.Logf("starting Chromium again: %v", err)
	}
	t.Fatalf("Chromium does not start: %v", err)
	return nil
}

// startBrowser starts one headless Chromium (browser's), stopped and its
// profile removed when t ends.
func startBrowser(t *testing.T) (context.Context, error) {
	t.Helper()
	exe := chromium(t)
	profile, err := os.MkdirTemp("", "btrun-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1600, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 10*time.Minute) // a hang guard
	t.Cleanup(func() {
		cancelT()
		cancelC()
		cancelA()
		for range 20 { // the browser's helpers may still be writing the profile as they exit
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		return nil, err
	}
	return ctx, nil
}

// getJSON reads an API answer.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

type apiAgent struct {
	ID     string `json:"id"`
	Rule   string `json:"rule"`
	Cursor int    `json:"cursor"`
	Step   int    `json:"step"`
}

type apiStatus struct {
	Step   int  `json:"step"`
	Paused bool `json:"paused"`
	Live   bool `json:"live"`
	Reason *struct {
		Kind string `json:"kind"`
	} `json:"reason"`
}

// waitText waits until the element's text contains want.
func waitText(sel, want string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var got string
		for {
			if err := chromedp.Text(sel, &got, chromedp.ByQuery).Do(ctx); err == nil && strings.Contains(got, want) {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s never read %q (last %q): %w", sel, want, got, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// waitStep waits until the game has run step n (the game runs at real
// time: however long a loaded machine takes for it).
func waitStep(url string, n int) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			var st apiStatus
			resp, err := http.Get(url + "api/status")
			if err == nil {
				err = json.NewDecoder(resp.Body).Decode(&st)
				resp.Body.Close()
			}
			if err == nil && st.Step >= n {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the game never reached step %d (at %d, %v): %w", n, st.Step, err, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}

// cursorRule is the rule index the page highlights as the current rule.
func cursorRule(ctx context.Context, t *testing.T) int {
	t.Helper()
	var idx int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const n = document.querySelector('.node.cursor'); return n ? Number(n.dataset.rule) : -1 })()`, &idx)); err != nil {
		t.Fatal(err)
	}
	return idx
}

func shoot(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	if !*screenshots {
		return
	}
	var png []byte
	if err := chromedp.Run(ctx, chromedp.Sleep(400*time.Millisecond), chromedp.CaptureScreenshot(&png)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("..", "docs", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLiveView_inABrowser: on the example game, the page lists the agents,
// draws the chosen agent's tree with its current rule highlighted, pauses,
// steps and resumes, stops at breakpoints set from the page (one on a rule
// inside a parallel's lane, where it shows every lane's cursor, the
// parallel's lanes and the game's gates), and shows an earlier step, with
// its lanes and gate holders, when the time slider is dragged back.
func TestLiveView_inABrowser(t *testing.T) {
	ctx := browser(t)
	url := liveView(t, "-config", "../config.toml", "-paused", "-steps", "600")
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	run("load the page",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#agents li[data-id="grunt-1"]`, chromedp.ByQuery),
		waitText("#runstate", "paused before the first step"))

	run("pick an agent",
		click(`#agents li[data-id="grunt-1"]`),
		waitText("#treetitle", "grunt-1"),
		chromedp.WaitVisible(`.node.cursor`, chromedp.ByQuery))
	if c := cursorRule(ctx, t); c != 0 {
		t.Errorf("before the first step the highlighted rule is %d, not the root", c)
	}

	run("step", click(`#step`), waitText("#stepno", "step 1 / 600"))
	var a apiAgent
	getJSON(t, url+"api/agents/grunt-1", &a)
	run("see the current rule", waitCursor(a.Cursor))

	run("resume", click(`#pause`), waitText("#runstate", "running at 1× real time"))
	run("pause", waitStep(url, 2), click(`#pause`), waitText("#runstate", "paused"))
	var st apiStatus
	getJSON(t, url+"api/status", &st)
	if !st.Paused || st.Step < 2 {
		t.Fatalf("after resume and pause: %+v", st)
	}

	// A breakpoint on grunt.attack.close.chase, a lane of the parallel
	// grunt.attack.close, set with the rule's dot: the example game's first
	// chase (grunt-1, step 71; tests/testdata/golden/example.trace).
	ruleAt := func(label string) int {
		t.Helper()
		var i int
		run("find "+label, chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll('.node')].find(n => n.title.startsWith(%q)).dataset.rule * 1`, label+"\n"), &i))
		return i
	}
	chase, track := ruleAt("grunt.attack.close.chase"), ruleAt("grunt.attack.close.track")
	run("set a breakpoint in a lane",
		// The dot shows when the mouse is over the rule: clicked by script.
		chromedp.Evaluate(fmt.Sprintf(`document.querySelector('.node[data-rule="%d"] .bp').click()`, chase), nil),
		chromedp.WaitVisible(fmt.Sprintf(`.node[data-rule="%d"] .bp.on`, chase), chromedp.ByQuery),
		waitText("#bps", "grunt.attack.close.chase"))
	run("run as fast as it can to the lane's breakpoint",
		chromedp.SetValue(`#speed`, "fast", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('#speed').dispatchEvent(new Event('change'))`, nil),
		click(`#pause`),
		waitText("#runstate", "breakpoint: grunt-1 arrived at grunt.attack.close.chase"),
		waitText("#stepno", "step 71 / 600"),
		chromedp.WaitVisible(fmt.Sprintf(`.node.lanecur[data-rule="%d"]`, chase), chromedp.ByQuery),
		chromedp.WaitVisible(fmt.Sprintf(`.node.lanecur[data-rule="%d"]`, track), chromedp.ByQuery),
		waitText("#lanes-card", "grunt.attack.close"),
		waitText("#lanes-card", "running"),
		waitText(fmt.Sprintf(`.node[data-rule="%d"] .l3`, chase), "lane running"),
		waitText("#gates", "grenade"),
		waitText("#gates", "0/1"))
	shoot(ctx, t, "debug-breakpoint.png")
	run("remove the lane's breakpoint",
		click(`#bps li button`),
		waitText("#bps", "Click the dot"))

	// A breakpoint on grunt.attack.fire.shoot, set from the rule's menu: the
	// example game's first shot (grunt-1, step 87, right after its first grenade; tests/testdata/golden/example.trace).
	var shot int
	run("find the rule", chromedp.Evaluate(`[...document.querySelectorAll('.node')].find(n => n.title.startsWith('grunt.attack.fire.shoot\n')).dataset.rule * 1`, &shot))
	var nodes []*cdp.Node
	run("open the rule's menu",
		chromedp.Nodes(fmt.Sprintf(`.node[data-rule="%d"]`, shot), &nodes, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			return chromedp.MouseClickNode(nodes[0], chromedp.ButtonType(input.Right)).Do(ctx)
		}),
		chromedp.WaitVisible(`#menu`, chromedp.ByQuery))
	run("set the breakpoint",
		click(`#menu button:first-of-type`),
		chromedp.WaitVisible(fmt.Sprintf(`.node[data-rule="%d"] .bp.on`, shot), chromedp.ByQuery),
		waitText("#bps", "grunt.attack.fire.shoot"))
	run("run on",
		click(`#pause`),
		waitText("#runstate", "breakpoint: grunt-1 arrived at grunt.attack.fire.shoot"),
		waitText("#stepno", "step 87 / 600"),
		waitCursor(shot),
		waitText("#gates", "cooling")) // grunt-1 released the grenade at this step

	// Drag the time slider back to step 80: grunt-1 holds the grenade
	// there, and its parallel ended with the chase done and the tracking
	// cancelled.
	run("scrub back to the grenade",
		chromedp.Evaluate(`(() => { const s = document.querySelector('#slider'); s.value = 80; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); })()`, nil),
		waitText("#stepno", "step 80 / 600"),
		waitText("#gates", "#1 grunt-1"),
		waitText("#held-card", "grenade"),
		waitText("#lanes-card", "cancelled"),
		waitText(fmt.Sprintf(`.node[data-rule="%d"] .l3`, track), "lane cancelled"))
	shoot(ctx, t, "debug-timetravel.png")

	// Drag the time slider back to step 40: the page shows that step.
	run("scrub back",
		chromedp.Evaluate(`(() => { const s = document.querySelector('#slider'); s.value = 40; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); })()`, nil),
		waitText("#stepno", "step 40 / 600"),
		waitText("#runstate", "showing step 40, 47 behind the latest"))
	getJSON(t, url+"api/status", &st)
	getJSON(t, url+"api/agents/grunt-1", &a)
	if st.Step != 40 || st.Live || a.Step != 40 || a.Rule == "grunt.attack.fire.shoot" {
		t.Fatalf("at step 40: status %+v, grunt-1 %+v", st, a)
	}
	run("see the rule of step 40", waitCursor(a.Cursor))
	run("open memory", click(`#agents li[data-id="courier-1"]`), waitText("#treetitle", "courier-1"))

	run("back to live",
		click(`#live`),
		waitText("#stepno", "step 87 / 600"))
}

// waitCursor waits until the page highlights rule i as the current rule.
func waitCursor(i int) chromedp.Action {
	return chromedp.WaitVisible(fmt.Sprintf(`.node.cursor[data-rule="%d"]`, i), chromedp.ByQuery)
}

// TestLiveView_showsStimuli: on the signals fixture, the chosen agent's
// card lists the stimuli it holds, with their data, age and time left; a
// signal sent with data from the card's form is held with that data.
func TestLiveView_showsStimuli(t *testing.T) {
	ctx := browser(t)
	url := liveView(t, "-config", fixture("signals"), "-paused")
	stepPaused(t, url, 21)
	if err := chromedp.Run(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#agents li[data-id="medic-1"]`, chromedp.ByQuery),
		waitText("#stepno", "step 21 / 80"),
		click(`#agents li[data-id="medic-1"]`),
		waitText("#treetitle", "medic-1"),
		waitText("#stimuli", "Attacked"),
		waitText("#stimuli", "Attacked\n0.25 s ago · expires in 1.25 s"),
		waitText("#stimuli", `{"by":"sniper","damage":12.5,"from":[10,-3]}`),
		click(`#agents li[data-id="grunt-1"]`),
		waitText("#treetitle", "grunt-1"),
		waitText("#stimuli", "Status"),
		// A signal with data from the page's form: the agent holds it.
		sendKeys(`#signalname`, "Poke"),
		sendKeys(`#signaldata`, `{"hp": 10, "at": [4, -2]}`),
		click(`#signalform button`),
		waitText("#stimuli", `{"at":[4,-2],"hp":10}`),
	); err != nil {
		t.Fatal(err)
	}
	if path := os.Getenv("BTRUN_STIMULI_SHOT"); path != "" { // a picture of the page, to look at
		var png []byte
		if err := chromedp.Run(ctx, click(`#agents li[data-id="medic-1"]`), waitText("#treetitle", "medic-1"),
			chromedp.Sleep(300*time.Millisecond), chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, png, 0o644)
	}
}

// TestLiveView_showsCountsAndHooks: on the example game at step 155, the
// page shows medic-3's repeat rule with its pass ("pass 3/3", two passes
// succeeded) and the hooked healing branch as started, with the rules'
// repeat, enter and exit attributes.
func TestLiveView_showsCountsAndHooks(t *testing.T) {
	ctx := browser(t)
	url := liveView(t, "-config", "../config.toml", "-paused", "-steps", "600")
	stepPaused(t, url, 155) // medic-3's bandages: steps 142, 152 and 163 (tests/testdata/golden/example.trace)
	if err := chromedp.Run(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url+"#agent=medic-3"),
		waitText("#stepno", "step 155"),
		waitText("#treetitle", "medic-3"),
		waitText("#timers", "medic.heal.treat"),
		waitText("#timers", "pass 3 of 3 (2 succeeded)"),
		waitText("#timers", "started: its exit hook medkit will run when it is left"),
		waitText("#canvas", "pass 3/3"),
		waitText("#canvas", "repeat"),
		waitText("#canvas", "medkit"),
	); err != nil {
		t.Fatal(err)
	}
}
