package tests

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// slotAgent is what the test reads of an agent's view: its slot.
type slotAgent struct {
	ID      string `json:"id"`
	TreeKey string `json:"treeKey"`
	Rule    string `json:"rule"`
	Slots   []struct {
		Slot  string `json:"slot"`
		Holds string `json:"holds"`
	} `json:"slots"`
}

// graftDrawing is what the page draws of the chosen agent's slot: the tag
// on the slot rule, the bands behind grafted trees, and the grafted rules
// (their ids, whether each is drawn right of the slot, one depth per level
// below it, and whether the cursor is among them).
type graftDrawing struct {
	SlotChip string   `json:"slotChip"`
	Bands    []string `json:"bands"`
	Grafted  []string `json:"grafted"`
	Under    bool     `json:"under"`
	Cursor   bool     `json:"cursor"`
	Results  int      `json:"results"`
}

const readGrafts = `(() => {
  const v = ui.shown, rules = v.tree.rules;
  const slot = rules.findIndex((r) => r.kind === 'slot');
  const sp = v.layout.pos[slot];
  const out = { slotChip: [...v.nodes[slot].querySelectorAll('.chip')].map((c) => c.textContent).join(' '),
    bands: [...document.querySelectorAll('#canvas .graftband')].map((b) => b.textContent), grafted: [], under: true, cursor: false, results: 0 };
  document.querySelectorAll('#canvas .node.grafted').forEach((n) => {
    const i = Number(n.dataset.rule), r = rules[i], p = v.layout.pos[i];
    out.grafted.push(r.id);
    if (!(p.x >= sp.x + (r.depth - rules[slot].depth) * 256 - 1 && p.x <= sp.x + (r.depth - rules[slot].depth) * 256 + 1)) out.under = false;
    if (n.classList.contains('cursor') || n.classList.contains('lanecur')) out.cursor = true;
    if (n.querySelector('.res').textContent !== '–') out.results++;
  });
  return out;
})()`

// TestLiveView_drawsTheGraftedTreeUnderItsSlot: on the slots fixture, the
// page draws the chosen agent's tree with the tree grafted into its slot
// hung under the slot rule, marked (a dashed band "grafted: gun", the tag
// "grafted gun" on the slot), with the cursor and results on its rules; a
// breakpoint set by a click on a grafted rule names it by slot and label;
// and when the chosen agent's slot takes another tree (the crate, or its
// default patrol) the drawing follows.
// BTRUN_SLOTS_SHOT=FILE writes a screenshot (docs/debug-slots.png).
func TestLiveView_drawsTheGraftedTreeUnderItsSlot(t *testing.T) {
	ctx := browser(t)
	url := liveView(t, "-config", fixture("slots"), "-paused")
	stepPaused(t, url, 6)
	gunner := ""
	for i := 1; i <= 5 && gunner == ""; i++ {
		var a slotAgent
		getJSON(t, fmt.Sprintf("%sapi/agents/grunt-%d", url, i), &a)
		if a.Slots[0].Holds == "gun" {
			gunner = a.ID
		}
	}
	if gunner == "" {
		t.Fatal("no grunt holds the gun at step 6")
	}
	if err := chromedp.Run(ctx,
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(url+"#agent="+gunner),
		waitText("#stepno", "step 6 / 60"),
		waitText("#treetitle", "slot use ← gun"),
		waitText("#treetitle", gunner),
	); err != nil {
		t.Fatal(err)
	}
	d := readDrawing(ctx, t)
	if d.SlotChip != "grafted gun" || len(d.Bands) != 1 || d.Bands[0] != "grafted: gun" || len(d.Grafted) != 9 ||
		d.Grafted[0] != "use.man" || !d.Under || !d.Cursor || d.Results == 0 {
		t.Fatalf("%s's gun: %+v", gunner, d)
	}
	if path := os.Getenv("BTRUN_SLOTS_SHOT"); path != "" { // a picture of the page (docs/debug.md)
		var png []byte
		if err := chromedp.Run(ctx, click("#zoomfit"), chromedp.Sleep(300*time.Millisecond), chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, png, 0o644)
	}

	// A breakpoint set from the page on a grafted rule names it by its label.
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`[...document.querySelectorAll('#canvas .node.grafted')].find((n) => n.title.startsWith('use.man.cool\n')).querySelector('.bp').click()`, nil),
		waitText("#bps", "use.man.cool"),
		chromedp.WaitVisible(`#canvas .node.grafted .bp.on`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Breakpoints []struct {
			Tree, Label, Slot string
			Rule              int
		}
	}
	getJSON(t, url+"api/status", &st)
	if len(st.Breakpoints) != 1 || st.Breakpoints[0].Tree != "grunt" || st.Breakpoints[0].Label != "use.man.cool" || st.Breakpoints[0].Slot != "use" || st.Breakpoints[0].Rule != -1 {
		t.Fatalf("breakpoints after a click on use.man.cool: %+v", st.Breakpoints)
	}

	// Step until the gunner's slot holds another tree: the page follows.
	var a slotAgent
	for s := 7; s <= 40; s++ {
		stepPaused(t, url, 1)
		getJSON(t, url+"api/agents/"+gunner, &a)
		if a.Slots[0].Holds != "gun" {
			break
		}
	}
	other := a.Slots[0].Holds
	chip := "grafted " + other
	if other == "patrol" {
		chip += " (default)"
	}
	if err := chromedp.Run(ctx, waitText("#treetitle", "slot use ← "+other), waitText("#canvas .graftband", "grafted: "+other)); err != nil {
		t.Fatal(err)
	}
	d = readDrawing(ctx, t)
	if d.SlotChip != chip || len(d.Bands) != 1 || len(d.Grafted) == 0 || d.Grafted[0] != "use."+other || !d.Under {
		t.Fatalf("%s after its slot took %s: %+v", gunner, other, d)
	}
}

func readDrawing(ctx context.Context, t *testing.T) graftDrawing {
	t.Helper()
	var d graftDrawing
	if err := chromedp.Run(ctx, chromedp.Evaluate(readGrafts, &d)); err != nil {
		t.Fatal(err)
	}
	return d
}
