package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Issue 40's warnings and hooks in the editor, in a real browser driven by
// the mouse and keys: a rule added from the palette that makes the next
// one unreachable is marked at it with validate's message (and Undo
// clears it); the built-in bt.log hook and an inline Lua hook are set from
// the palette, their parameters completed with the keys, and saved.
func TestBuild_warningsAndHooksInTheEditor(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := runStep(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	head := func(label string) string { return `.erule[data-label="` + label + `"] > .ehead` }
	pal := func(kind, name string) string {
		return `#edpallist .epal[data-kind="` + kind + `"][data-name="` + name + `"]`
	}
	problem := func(rule, text string) string {
		return `ed.cur.problems.some((p) => p.rule === '` + rule + `' && p.message.includes(` + jsString(text) + `))`
	}
	run("open the wanderer's tree",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=wanderer-1"),
		waitText("#treetitle", "wanderer-1"),
		chromedp.WaitVisible(`#editopen`, chromedp.ByQuery),
		click(`#editopen`),
		chromedp.WaitVisible(head("wait"), chromedp.ByQuery),
		waitJS(`ed.cur.problems && !ed.cur.problems.some((p) => p.message.includes('can never run'))`))

	// The choice's last child is a <success> without an id (flee and
	// backOff are named in the scripts, so a jump may reach them: not
	// reported). Another <success> before it makes it unreachable.
	run("a <success> after backOff: the last rule can never run",
		click(head("backOff")),
		click(pal("rule", "success")),
		waitJS(`ed.cur.problems.filter((p) => p.rule.startsWith('success@') && p.message.startsWith('can never run: it comes after success@') && p.message.endsWith('is a <success> with no conditions: it always succeeds, which ends the choice; only a jump can reach it')).length === 1`),
		waitJS(`document.querySelectorAll('.erule.has-warning').length === 1`),
		click(`.erule.has-warning > .ehead`),
		waitText("#edinspprobs", "which ends the choice; only a jump can reach it"))
	shoot(ctx, t, "debug-build-warning.png")
	run("undo: the warning goes",
		click(`#edundo`),
		waitJS(`!ed.cur.problems.some((p) => p.message.includes('can never run'))`))

	// bt.log as wait's enter hook: a bind error until its text is given,
	// the parameter's name completed from what the hook declares.
	run("bt.log from the palette",
		click(head("wait")),
		click(pal("hook", "bt.log")),
		waitJS(`ed.cur.source.includes("<action id='wait' name='wait' enter='bt.log'>")`),
		waitJS(problem("wait", `enter hook bt.log needs parameter "log.enter"`)))
	run("its text, completed with the keys",
		click(`#ednewparam`),
		sendKeys(`#ednewparam`, "log.en"),
		chromedp.WaitVisible(`#edcomplete .citem[data-name="log.enter"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Enter),
		waitJS(`document.activeElement && document.activeElement.id === 'ednewvalue'`),
		sendKeys(`#ednewvalue`, "waits a while"),
		chromedp.KeyEvent(kb.Enter),
		waitJS(`ed.cur.source.includes('<parameter name="log.enter">waits a while</parameter>')`),
		waitJS(`!ed.cur.problems.some((p) => p.rule === 'wait')`))

	// An inline Lua hook on flee: exit="bt.lua" (enter is free, so the
	// palette sets enter; the test sets exit through the attribute field).
	run("an inline Lua hook written in the page",
		click(head("flee")),
		chromedp.WaitVisible(`#edinsp input[data-attr="exit"]`, chromedp.ByQuery),
		setField(`#edinsp input[data-attr="exit"]`, "bt.lua"),
		waitJS(problem("flee", `bt.lua needs parameter "lua.exit"`)),
		click(`#ednewparam`),
		sendKeys(`#ednewparam`, "lua.ex"),
		chromedp.WaitVisible(`#edcomplete .citem[data-name="lua.exit"]`, chromedp.ByQuery),
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.KeyEvent(kb.Enter),
		sendKeys(`#ednewvalue`, `ctx:log("fled: " .. how)`),
		chromedp.KeyEvent(kb.Enter),
		waitJS(`ed.cur.source.includes('<parameter name="lua.exit">ctx:log("fled: " .. how)</parameter>')`),
		waitJS(`!ed.cur.problems.some((p) => p.rule === 'flee')`))
	shoot(ctx, t, "debug-build-hooks.png")
	run("save",
		click(`#edsave`),
		waitText("#edresult", "Saved scripts/ai/dragengine-exampleapp.xml"))
	got, err := os.ReadFile(filepath.Join(g.dir, "scripts", "ai", "dragengine-exampleapp.xml"))
	if err != nil {
		t.Fatal(err)
	}
	// The file writes its attributes in single quotes; the editor keeps to them.
	for _, want := range []string{`enter='bt.log'`, `<parameter name="log.enter">waits a while</parameter>`, `exit='bt.lua'`, `<parameter name="lua.exit">ctx:log("fled: " .. how)</parameter>`} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the saved file lacks %s", want)
		}
	}
}
