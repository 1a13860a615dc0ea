package liveview

import (
	"reflect"
	"slices"
	"testing"

	"github.com/btrun/btrun/game"
)

// TestDebugger_methodsAreTheProgramsOwn: a program holding a *Debugger
// meets Handler, Quit and Close; the game's calls into it (game.Debugger,
// game.StepGate) are an adapter's, which New attaches.
func TestDebugger_methodsAreTheProgramsOwn(t *testing.T) {
	typ := reflect.TypeFor[*Debugger]()
	var names []string
	for m := range typ.Methods() {
		names = append(names, m.Name)
	}
	if want := []string{"Close", "Handler", "Quit"}; !slices.Equal(names, want) {
		t.Errorf("*Debugger's methods are %v, want %v", names, want)
	}
	var d any = (*Debugger)(nil)
	if _, ok := d.(game.Debugger); ok {
		t.Error("*Debugger is a game.Debugger")
	}
}
