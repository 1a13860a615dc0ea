package tests

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// examples/embed is a Go program that embeds btrun from a module of its own
// (`replace` to this repository): building it shows that everything it
// needs is public, and running it shows that it works. The repository's
// `go test ./...` does not enter that module, so these tests build and run
// it; .ci/run also vets and tests it in its own folder.

var (
	embedOnce sync.Once
	embedExe  string
	embedErr  error
)

// embedExample builds examples/embed once.
func embedExample(t *testing.T) string {
	t.Helper()
	embedOnce.Do(func() {
		dir, err := os.MkdirTemp("", "btrun-embed-")
		if err != nil {
			embedErr = err
			return
		}
		embedExe = filepath.Join(dir, "embed")
		build := exec.Command("go", "build", "-o", embedExe, ".")
		build.Dir = filepath.Join("..", "examples", "embed")
		out, err := build.CombinedOutput()
		if err != nil {
			t.Logf("%s", out)
			embedErr = err
		}
	})
	if embedErr != nil {
		t.Fatalf("building examples/embed (its own module, public packages only): %v", embedErr)
	}
	return embedExe
}

// TestEmbedExample_runsAndChecksItself runs the example as CI does: it
// exits 0 only when the game it restores from its save ends as the
// original, byte for byte.
func TestEmbedExample_runsAndChecksItself(t *testing.T) {
	cmd := exec.Command(embedExample(t))
	cmd.Dir = filepath.Join("..", "examples", "embed") // its plugin's folder is relative to it
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("examples/embed: %v\n%s", err, out)
	}
	for _, want := range []string{"live view: 200 OK, trees guard", "reloaded, 3 guards kept their place", "the same game, byte for byte"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
}

// TestEmbedExample_liveViewUnderItsPrefixInABrowser: the live view that
// the example mounts under /bt/ of its own server works in a real browser:
// the page finds its API under the prefix, lists the guards, draws a
// guard's tree, shows the steps the program's loop runs, and pauses them.
func TestEmbedExample_liveViewUnderItsPrefixInABrowser(t *testing.T) {
	exe := embedExample(t)
	cmd := exec.Command(exe, "-serve", "127.0.0.1:0", "-frames", "0")
	cmd.Dir = filepath.Join("..", "examples", "embed")
	stdout, err := cmd.StdoutPipe()
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
	found := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`trees at (http://\S+/bt/)`)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(3 * time.Minute): // the first run builds the sight plugin
		t.Fatal("examples/embed did not say where its live view is")
	}
	ctx := browser(t)
	if err := chromedp.Run(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(`#agents li[data-id="guard-1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#agents li[data-id="guard-2"]`, chromedp.ByQuery),
		// The element's own click, not a mouse at its coordinates: the game
		// runs at real time, and on a busy machine the page's layout can
		// move between finding the row and pressing the mouse there.
		chromedp.Evaluate(`document.querySelector('#agents li[data-id="guard-2"]').click()`, nil),
		waitText("#treetitle", "guard-2"),
		waitText("#runstate", "running"),
	); err != nil {
		t.Fatal(err)
	}
	var before, after apiStatus
	getJSON(t, url+"api/status", &before)
	waitStep := func(want int) {
		t.Helper()
		for {
			var st apiStatus
			getJSON(t, url+"api/status", &st)
			if st.Step >= want {
				return
			}
			time.Sleep(20 * time.Millisecond) // the program's loop runs at real time
		}
	}
	waitStep(before.Step + 3)
	if err := chromedp.Run(ctx,
		click(`#pause`),
		waitText("#runstate", "paused"),
	); err != nil {
		t.Fatal(err)
	}
	getJSON(t, url+"api/status", &after)
	if !after.Paused {
		t.Fatalf("paused from the page, the status says %+v", after)
	}
	// Paused, the program's loop goes on and the game stays; the page's
	// Step button runs exactly one step.
	next := fmt.Sprintf("step %d", after.Step+1)
	if err := chromedp.Run(ctx,
		click(`#step`),
		waitText("#stepno", next),
	); err != nil {
		t.Fatal(err)
	}
	var stepped apiStatus
	getJSON(t, url+"api/status", &stepped)
	if stepped.Step != after.Step+1 || !stepped.Paused {
		t.Errorf("after the Step button: %+v, want step %d, paused", stepped, after.Step+1)
	}
}
