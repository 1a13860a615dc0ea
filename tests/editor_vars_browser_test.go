package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Typed variables in the editor, in a real browser: typing a condition
// completes the tree's variable names with their types, and a comparison
// picked and finished by hand is written to the file escaped.
func TestEditor_completesTypedVariablesInConditions(t *testing.T) {
	g := startEdited(t, "-paused")
	ctx := browser(t)
	run := func(what string, actions ...chromedp.Action) {
		t.Helper()
		if err := runStep(ctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	patrol := `.erule[data-label="grunt.idle.patrol"]`
	run("open grunt's tree",
		chromedp.EmulateViewport(1600, 1000),
		chromedp.Navigate(g.url+"#agent=grunt-1"),
		waitText("#treetitle", "grunt-1"),
		chromedp.WaitVisible(`#editopen`, chromedp.ByQuery),
		click(`#editopen`),
		chromedp.WaitVisible(patrol, chromedp.ByQuery))
	run("select the patrol",
		click(patrol+` > .ehead`),
		chromedp.WaitVisible(`#ednewcond`, chromedp.ByQuery))
	run("type a condition: Ammo completes as a number variable",
		click(`#ednewcond`),
		sendKeys(`#ednewcond`, "Am"),
		chromedp.WaitVisible(`#edcomplete .citem[data-name="Ammo"]`, chromedp.ByQuery),
		waitText(`#edcomplete .citem[data-name="Ammo"]`, "number variable"))
	run("pick it: the number alone is a condition (Ammo > 0)",
		click(`#edcomplete .citem[data-name="Ammo"]`),
		chromedp.WaitVisible(`#edinsp input[data-cond="0"]`, chromedp.ByQuery),
		waitText("#edcount", "no problems"))
	run("make it a comparison and save",
		setField(`#edinsp input[data-cond="0"]`, "Ammo < 3"),
		waitJS(`ed.cur.source.includes('<condition>Ammo &lt; 3</condition>')`),
		waitText("#edcount", "no problems"),
		click(`#edsave`),
		waitText("#edresult", "kept their place"))
	data, err := os.ReadFile(filepath.Join(g.dir, "scripts", "ai", "grunt.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "<condition>Ammo &lt; 3</condition>") {
		t.Errorf("grunt.xml lacks the comparison, escaped:\n%s", data)
	}
}
