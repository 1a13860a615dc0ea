package tests

import (
	"context"
	"strings"

	"github.com/chromedp/chromedp"
)

// The page redraws parts of itself (tabs, lists, the inspector) whenever
// its state changes. chromedp finds an element, then acts on its node: when
// the page replaced the element in between, Chromium answers "Could not find
// node with given id" and the action fails although the element is there.
// These wrappers query again in that case; the failing call is always one
// made before the click or the keys are sent, so nothing happens twice.

// retryGone runs a query action again (at most five times) while its node
// was replaced under it.
func retryGone(a chromedp.Action) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var err error
		for try := 0; try < 5; try++ {
			if err = a.Do(ctx); err == nil || !nodeGone(err) {
				return err
			}
		}
		return err
	})
}

// nodeGone tells whether err is Chromium's answer about a node the page
// removed after it was found.
func nodeGone(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "Could not find node with given id") || strings.Contains(msg, "No node with given id found")
}

// click clicks the first visible element sel with the mouse.
func click(sel string) chromedp.Action { return retryGone(chromedp.Click(sel, chromedp.ByQuery)) }

// sendKeys types keys into the element sel.
func sendKeys(sel, keys string) chromedp.Action {
	return retryGone(chromedp.SendKeys(sel, keys, chromedp.ByQuery))
}

// focus gives the element sel the keyboard's focus.
func focus(sel string) chromedp.Action { return retryGone(chromedp.Focus(sel, chromedp.ByQuery)) }
