package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Issue 40, "Build": the tree edited in the drawing the designer watches
// (select, drag, drop from the palette, the agents on their rules, a
// question before deleting a rule agents run), and structural editing at a
// designer's pace (wrap, unwrap, clipboard, duplicate, extract, search,
// pan and zoom, auto-scroll), in a real browser driven by mouse and keys.

// key presses a key with modifiers (input.ModifierCtrl, ...).
func key(k string, mods ...input.Modifier) chromedp.Action {
	return chromedp.KeyEvent(k, chromedp.KeyModifiers(mods...))
}

// mouseAt dispatches one mouse event at x, y.
func mouseAt(typ input.MouseType, x, y float64, buttons int64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		ev := input.DispatchMouseEvent(typ, x, y).WithButtons(buttons)
		if typ != input.MouseMoved || buttons != 0 {
			ev = ev.WithButton(input.Left).WithClickCount(1)
		}
		return ev.Do(ctx)
	})
}

// shiftClick clicks the element sel with Shift held.
func shiftClick(sel string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		x, y, err := center(ctx, sel)
		if err != nil {
			return err
		}
		return chromedp.MouseClickXY(x, y, chromedp.ButtonModifiers(input.ModifierShift)).Do(ctx)
	})
}

// rectCenter is the middle of the element sel as it is on screen now
// (center scrolls it into view first, which moves the drawing's panes).
func rectCenter(ctx context.Context, sel string) (float64, float64, error) {
	var xy []float64
	js := fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return null; const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()`, sel)
	if err := chromedp.Evaluate(js, &xy).Do(ctx); err != nil {
		return 0, 0, err
	}
	if len(xy) != 2 {
		return 0, 0, fmt.Errorf("no element %s", sel)
	}
	return xy[0], xy[1], nil
}

// gdrag drags the element from onto the element to with the mouse,
// where they are on screen.
func gdrag(from, to string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		x, y, err := rectCenter(ctx, from)
		if err != nil {
			return err
		}
		if err := mouseAt(input.MousePressed, x, y, 1).Do(ctx); err != nil {
			return err
		}
		tx, ty, err := rectCenter(ctx, to)
		if err != nil {
			return err
		}
		for i := 1; i <= 12; i++ {
			f := float64(i) / 12
			if err := mouseAt(input.MouseMoved, x+(tx-x)*f, y+(ty-y)*f, 1).Do(ctx); err != nil {
				return err
			}
		}
		return mouseAt(input.MouseReleased, tx, ty, 0).Do(ctx)
	})
}

// reveal scrolls the element sel to the middle of its pane.
func reveal(sel string) chromedp.Action {
	return chromedp.Evaluate(fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: 'center', inline: 'center'}); 1`, sel), nil)
}

// wheel turns the mouse wheel over the element sel.
func wheel(sel string, dy float64) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		x, y, err := center(ctx, sel)
		if err != nil {
			return err
		}
		return input.DispatchMouseEvent(input.MouseWheel, x, y).WithDeltaX(0).WithDeltaY(dy).Do(ctx)
	})
}

func TestEditor_editInTheDrawing(t *testing.T) {
	g := startEdited(t, "-paused")
	stepPaused(t, g.url, 5)
	ctx := browser(t)
	run := stepper(t, ctx)
	src := func(expr string) chromedp.Action {
		return waitJS(`(() => { const s = ed.cur.source; return ` + expr + ` })()`)
	}
	node := func(label string) string { return `.gnode[data-label="` + label + `"]` }
	var onRule string
	run("open grunt's tree in the drawing: the agents are on their rules",
		// The browser's window is 1600x1000 with its frame: a page of that
		// height would put the drawing's last rules where mouse moves do
		// not reach.
		chromedp.EmulateViewport(1600, 860),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		click(`#editopen`),
		chromedp.WaitVisible(`#edvgraph`, chromedp.ByQuery),
		click(`#edvgraph`),
		chromedp.WaitVisible(node("grunt.idle.patrol"), chromedp.ByQuery),
		waitJS(`[...document.querySelectorAll('.gnode.cursor .gagents')].some((c) => c.title.split(', ').includes('grunt-1'))`),
		chromedp.Evaluate(`ui.agents.find((a) => a.id === 'grunt-1').rule`, &onRule))
	shoot(ctx, t, "debug-edit-drawing.png")

	run("click selects in both views",
		click(node("grunt.investigate.say")),
		waitJS(`ed.sel === 'grunt.investigate.say' && document.querySelector('.gnode.sel').dataset.label === ed.sel`),
		chromedp.WaitVisible(`#edinsp .ihead`, chromedp.ByQuery),
		click(`#edvtree`),
		chromedp.WaitVisible(`.erule.sel[data-label="grunt.investigate.say"]`, chromedp.ByQuery),
		click(`.erule[data-label="grunt.idle.look"] > .ehead`),
		click(`#edvgraph`),
		chromedp.WaitVisible(node("grunt.idle.look")+".sel", chromedp.ByQuery))

	run("drag a rule onto a list: it moves into it, last",
		chromedp.Evaluate(`1; for (const t of ['pointerdown','pointermove','pointerup','mousemove','mouseup','pointercancel','dragstart']) document.addEventListener(t, (e) => LOG.push(t + ' ' + (e.target.className || e.target.tagName) + ' ' + JSON.stringify(ed.drag && {z: ed.drag.zone && ed.drag.zone.dataset.parent, g: !!ed.drag.ghost})), true); 1`, nil),
		gdrag(node("grunt.investigate.say"), node("grunt.idle")),
		src(`/<action id=".look"[\s\S]*<action id=".say"[\s\S]*<\/choice>\s*<\/choice>/.test(s)`),
		chromedp.WaitVisible(node("grunt.idle.say"), chromedp.ByQuery))
	run("drag it between two rules",
		gdrag(node("grunt.idle.say"), `.gzone[data-parent="grunt.investigate"][data-index="1"]`),
		src(`/<action id=".search"[\s\S]*<action id=".say"[\s\S]*<action id=".calm"/.test(s)`))
	run("drop an action from the palette onto a rule",
		sendKeys(`#edpalq`, "bt.wait"),
		drag(`.epal[data-name="bt.wait"]`, node("grunt.investigate.calm")),
		src(`/<action id=".calm"[^\n]*\n\s*<action name="bt.wait"/.test(s)`),
		click(`#edundo`),
		click(`#edundo`),
		click(`#edundo`),
		src(`s === ed.cur.saved`))

	// Deleting the rule grunt-1 is on asks first and names it; Cancel
	// keeps it, the second time it goes.
	run("delete a rule an agent runs: asked first",
		reveal(node(onRule)),
		click(node(onRule)),
		waitJS(`ed.sel === '`+onRule+`'`),
		key(kb.Delete),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		waitText("#confirmtext", "grunt-1"),
		waitText("#confirmtext", onRule))
	shoot(ctx, t, "debug-edit-running.png")
	run("cancel, then delete",
		click(`#confirmno`),
		waitJS(`document.querySelector('#confirm').hidden`),
		src(`s === ed.cur.saved`),
		key(kb.Backspace),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		click(`#confirmyes`),
		waitJS(`!ed.cur.outline.rules.some((r) => r.label === '`+onRule+`')`),
		click(`#edundo`),
		src(`s === ed.cur.saved`))

	run("move a rule an agent runs: asked first, cancelled",
		reveal(node(onRule)),
		gdrag(node(onRule), `.gzone[data-parent="grunt.investigate"][data-index="0"]`),
		chromedp.WaitVisible(`#confirm`, chromedp.ByQuery),
		waitText("#confirmtext", "grunt-1"),
		waitText("#confirmyes", "Move"),
		click(`#confirmno`),
		waitJS(`document.querySelector('#confirm').hidden`),
		src(`s === ed.cur.saved`))

	var zoom, left float64
	run("wheel zoom and drag-pan",
		wheel(`#edgraph`, -300),
		wheel(`#edgraph`, -300),
		waitJS(`gr.zoom > 1.2`),
		chromedp.Evaluate(`gr.zoom`, &zoom),
		chromedp.Evaluate(`(() => { const w = document.querySelector('#edgraph'); w.scrollLeft = 200; return w.scrollLeft })()`, &left))
	// The background right of the drawing's top: nothing is drawn there.
	var box []float64
	run("the background", chromedp.Evaluate(`(() => { const r = document.querySelector('#edgraph').getBoundingClientRect(); return [r.right - 60, r.top + 20] })()`, &box))
	run("pan",
		mouseAt(input.MousePressed, box[0], box[1], 1),
		mouseAt(input.MouseMoved, box[0]-40, box[1]+10, 1),
		mouseAt(input.MouseMoved, box[0]-80, box[1]+20, 1),
		mouseAt(input.MouseReleased, box[0]-80, box[1]+20, 0),
		waitJS(`document.querySelector('#edgraph').scrollLeft >= `+strconv.Itoa(int(left)+79)))
	if zoom <= 1.2 {
		t.Errorf("zoom %v after the wheel", zoom)
	}
}

func TestEditor_structuralEditing(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := stepper(t, ctx)
	src := func(expr string) chromedp.Action {
		return waitJS(`(() => { const s = ed.cur.source; return ` + expr + ` })()`)
	}
	rule := func(label string) string { return `.erule[data-label="` + label + `"] > .ehead` }
	ctrl := input.ModifierCtrl
	run("open grunt's tree",
		chromedp.EmulateViewport(1400, 760),
		chromedp.Navigate(g.url+"#tree=grunt&edit"),
		chromedp.WaitVisible(rule("grunt.investigate.search"), chromedp.ByQuery))

	run("wrap two rules in a sequence (shift+click, Ctrl+G), unwrap it: the text is back",
		click(rule("grunt.investigate.say")),
		shiftClick(rule("grunt.investigate.calm")),
		waitJS(`document.querySelectorAll('.erule.sel2').length === 1`),
		key("g", ctrl),
		src(`/<sequence>\s*<action id=".say"[^\n]*\n\s*<action id=".calm"[^\n]*\n\s*<\/sequence>/.test(s)`),
		waitJS(`ed.sel && ed.sel.startsWith('sequence@')`),
		key("g", ctrl, input.ModifierShift),
		src(`s === ed.cur.saved`))
	run("wrap in a parallel from the bar",
		click(rule("grunt.investigate.search")),
		click(`#edstruct [data-wrap="parallel"]`),
		src(`/<parallel>\s*<action id=".search"/.test(s)`))
	shoot(ctx, t, "debug-edit-structure.png")
	run("undo", click(`#edundo`), src(`s === ed.cur.saved`))

	run("a new sequence from the palette has no placeholder rule",
		click(rule("grunt.investigate")),
		click(`.epal[data-name="sequence"]`),
		src(`/<action id=".calm"[^\n]*\n\s*<sequence\/>\n/.test(s)`),
		click(`#edundo`),
		src(`s === ed.cur.saved`))
	run("copy a rule, paste it into another list: a fresh id where the file uses it",
		click(rule("grunt.idle.look")),
		key("c", ctrl),
		click(rule("grunt.investigate")),
		key("v", ctrl),
		src(`/<action id=".calm"[^\n]*\n\s*<action id=".look" name="bt.wait">/.test(s)`),
		key("v", ctrl),
		src(`s.includes('<action id=".look2" name="bt.wait">')`))
	run("duplicate (Ctrl+D), cut (Ctrl+X), paste after a rule",
		click(rule("grunt.investigate.say")),
		key("d", ctrl),
		src(`s.includes('<action id=".say2" name="bt.log">')`),
		click(rule("grunt.investigate.say2")),
		key("x", ctrl),
		src(`!s.includes('.say2"')`),
		click(rule("grunt.idle.patrol")),
		key("v", ctrl),
		src(`/<action id=".patrol"[\s\S]*?<\/action>\s*<action id=".say2" name="bt.log">/.test(s)`),
		click(rule("grunt.idle.say2")),
		key(kb.Delete),
		src(`!s.includes('.say2"')`))

	run("find rules by id, action and condition",
		key("f", ctrl),
		sendKeys(`#edfind`, "bt.wait"),
		waitJS(`document.querySelectorAll('#edtree .erule.found').length >= 3`),
		waitText("#edfound", "1 of"),
		chromedp.KeyEvent("\r"),
		waitText("#edfound", "2 of"),
		chromedp.Evaluate(`document.querySelector('#edfind').value = ''`, nil),
		sendKeys(`#edfind`, "Investigating"),
		waitJS(`st.found.length === 1 && st.found[0] === 'grunt.investigate' && ed.sel === 'grunt.investigate'`),
		click(`#edvgraph`),
		chromedp.WaitVisible(`.gnode.found[data-label="grunt.investigate"]`, chromedp.ByQuery))
	shoot(ctx, t, "debug-edit-find.png")
	run("back to the outline", chromedp.KeyEvent(kb.Escape), click(`#edvtree`))

	// Auto-scroll: a drag held near the bottom of the outline scrolls it.
	var top0 float64
	run("auto-scroll while dragging",
		chromedp.Evaluate(`(() => { window.before = ed.cur.source; const c = document.querySelector('#edcenter'); c.scrollTop = 0; return c.scrollTop })()`, &top0),
		chromedp.ActionFunc(func(ctx context.Context) error {
			x, y, err := center(ctx, rule("grunt.attack"))
			if err != nil {
				return err
			}
			var r []float64
			if err := chromedp.Evaluate(`(() => { const b = document.querySelector('#edcenter').getBoundingClientRect(); return [b.bottom] })()`, &r).Do(ctx); err != nil {
				return err
			}
			if err := mouseAt(input.MousePressed, x, y, 1).Do(ctx); err != nil {
				return err
			}
			for i := 1; i <= 20; i++ {
				if err := mouseAt(input.MouseMoved, x+10, r[0]-4-float64(i%2), 1).Do(ctx); err != nil {
					return err
				}
			}
			return nil
		}),
		waitJS(`document.querySelector('#edcenter').scrollTop > 100`),
		chromedp.KeyEvent(kb.Escape),
		waitJS(`!ed.drag && !document.body.classList.contains('edragging')`),
		chromedp.ActionFunc(func(ctx context.Context) error {
			return mouseAt(input.MouseReleased, 5, 5, 0).Do(ctx) // Escape ended the drag: nothing moves
		}),
		src(`s === window.before`))

	run("extract a list into a new subtree file, save",
		click(rule("grunt.idle")),
		click(`#edextract`),
		waitJS(`(() => { if (!document.querySelector('#confirm').hidden) document.querySelector('#confirmyes').click();
			return ed.tabs.some((t) => t.file === 'scripts/ai/idle.xml' && t.isNew) })()`),
		src(`s.includes('<subtree id=".idle">idle.xml</subtree>') && !s.includes('name="patrol"')`),
		click(`#edsave`),
		waitText("#edresult", "Saved"))
	got, err := os.ReadFile(filepath.Join(g.dir, "scripts", "ai", "idle.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `<choice id="idle" order="score">`) || !strings.Contains(string(got), `<action id=".patrol" name="patrol">`) {
		t.Errorf("idle.xml:\n%s", got)
	}

	// Paste between files: copy from grunt.xml, paste into the new file.
	run("paste into another file",
		click(rule("grunt.investigate.say")),
		key("c", ctrl),
		click(`.edtab[data-file="scripts/ai/idle.xml"]`),
		chromedp.WaitVisible(rule("idle"), chromedp.ByQuery),
		click(rule("idle")),
		key("v", ctrl),
		src(`ed.cur.file === 'scripts/ai/idle.xml' && /<action id=".look"[\s\S]*<action id=".say" name="bt.log">/.test(s)`))
}
