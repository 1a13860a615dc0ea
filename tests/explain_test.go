package tests

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestExplain_addsWhyAndChangesNothingElse: -explain adds the key "why" to
// step lines and nothing else: without it the trace is the same but for
// that key, and has none.
func TestExplain_addsWhyAndChangesNothingElse(t *testing.T) {
	for _, fix := range []string{"gates", "slots"} {
		plain := run(t, "", "run", "-config", fixture(fix), "-trace", "-", "-quiet")
		explained := run(t, "", "run", "-config", fixture(fix), "-trace", "-", "-quiet", "-explain", "-workers", "2")
		if plain.code != 0 || explained.code != 0 {
			t.Fatalf("%s: exit %d, %d: %s %s", fix, plain.code, explained.code, plain.stderr, explained.stderr)
		}
		if strings.Contains(plain.stdout, `"why"`) {
			t.Fatalf("%s: a trace without -explain has \"why\"", fix)
		}
		if !strings.Contains(explained.stdout, `"why":[{`) {
			t.Fatalf("%s: -explain wrote no \"why\"", fix)
		}
		stripped := regexp.MustCompile(`(?m),"why":\[.*\]\}$`).ReplaceAllString(explained.stdout, "}")
		if stripped != plain.stdout {
			t.Errorf("%s: -explain changed more than the \"why\" keys", fix)
		}
	}
	gates := run(t, "", "run", "-config", fixture("gates"), "-trace", "-", "-quiet", "-explain")
	if !strings.Contains(gates.stdout, `"refused":"gate grenade","read":"grenade 1/1 held`) {
		t.Error("the gates fixture's trace shows no refusal by a full gate")
	}
}

// TestLiveView_showsWhy: the live view records why for every step and
// shows it for the chosen agent: guard-1 did not fight at step 2 because
// Alarm was false, and its flee rule was refused by its cooldown.
func TestLiveView_showsWhy(t *testing.T) {
	ctx := browser(t)
	url := liveView(t, "-config", fixture("interrupt"), "-paused")
	stepPaused(t, url, 2)
	if err := chromedp.Run(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#agents li[data-id="guard-1"]`, chromedp.ByQuery),
		waitText("#stepno", "step 2 / 40"),
		click(`#agents li[data-id="guard-1"]`),
		waitText("#treetitle", "guard-1"),
		waitText("#why", "guard-1 · fight at step 2: Alarm was false (Alarm=false)"),
		waitText("#why", "guard-1 · flee at step 2: refused by its cooldown (1.75 s left)"),
		waitText("#why", "order idle.nap, idle.look"),
	); err != nil {
		t.Fatal(err)
	}
	if path := os.Getenv("BTRUN_WHY_SHOT"); path != "" { // a picture of the page (docs/debug.md)
		var png []byte
		if err := chromedp.Run(ctx, chromedp.Sleep(300*time.Millisecond), chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, png, 0o644)
	}
}
