package tests

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// Issue 40's projects, in a real browser driven by the mouse and keys:
// every tree of the game in the Project list with its files, several trees
// open in tabs, the arrows and Delete on a tab, and a subtree file opened
// in the editor from the list.
func TestProjects_treesInTabs(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := runStep(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	tree := func(name string) string { return `#project .ptree[data-tree="` + name + `"]` }
	tab := func(name string) string { return `#treetabs .ttab[data-tab="` + name + `"]` }
	shown := func(name string) chromedp.Action {
		return waitJS(`ui.treeOnly === '` + name + `' && document.querySelector('#treetitle b') && document.querySelector('#treetitle b').textContent === '` + name +
			`' && document.querySelector('#treetabs .ttab.on') && document.querySelector('#treetabs .ttab.on').dataset.tab === '` + name + `'`)
	}
	run("the project lists every tree of the game and its files",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		waitJS(`document.querySelectorAll('#project .ptree').length === 8`),
		waitJS(`[...document.querySelectorAll('#project .pfile[data-tree="courier"]')].map((b) => b.dataset.file).join() === 'scripts/ai/courier.xml,scripts/ai/leg.xml'`),
		waitJS(`document.querySelector('#treetabs').hidden`))
	run("two trees opened by clicking: two tabs, the last shown",
		click(tree("sentry")),
		shown("sentry"),
		click(tree("medic")),
		shown("medic"),
		waitJS(`[...document.querySelectorAll('#treetabs .ttab')].map((b) => b.dataset.tab).join() === 'sentry,medic'`),
		waitJS(`document.querySelector('`+tree("medic")+`').classList.contains('shown') && location.hash === '#tree=medic'`))
	shoot(ctx, t, "debug-projects.png")
	run("a click on a tab shows its tree; an agent and back",
		click(tab("sentry")),
		shown("sentry"),
		click(`#agents li[data-id="grunt-1"]`),
		waitText("#treetitle", "grunt-1"),
		waitJS(`!document.querySelector('#treetabs .ttab.on')`),
		click(tab("medic")),
		shown("medic"))
	run("keys on a tab: the left arrow goes to the other tab, Delete closes it",
		focus(tab("medic")),
		chromedp.KeyEvent(kb.ArrowLeft),
		shown("sentry"),
		chromedp.KeyEvent(kb.Delete),
		shown("medic"),
		waitJS(`[...document.querySelectorAll('#treetabs .ttab')].map((b) => b.dataset.tab).join() === 'medic'`),
		waitJS(`document.activeElement && document.activeElement.dataset.tab === 'medic'`))
	run("× closes the last tab: the first agent is shown",
		click(tab("medic")+` .x`),
		waitJS(`document.querySelector('#treetabs').hidden && ui.selected !== null && ui.treeOnly === null`))
	run("a subtree file from the list opens in the editor",
		click(`#project .pfile[data-file="scripts/ai/leg.xml"]`),
		waitJS(`document.body.classList.contains('editing') && ed.tree === 'courier' && ed.cur && ed.cur.file === 'scripts/ai/leg.xml'`),
		waitJS(`ed.tabs.map((t) => t.file).join() === 'scripts/ai/courier.xml,scripts/ai/leg.xml'`))
	shoot(ctx, t, "debug-projects-edit.png")
}
