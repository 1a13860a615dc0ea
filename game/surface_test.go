package game_test

import (
	"reflect"
	"testing"

	"github.com/btrun/btrun/game"
	"github.com/btrun/btrun/runtime"
)

// TestGame_methodsAreTheProgramsOwn: *Game's methods are those a program
// calls, at most 40 of them. The runtime's callbacks into the game and the
// debugger's plumbing (DebugHost) are not among them, so a program cannot
// call them by accident, and a *Game is none of the runtime's observers.
func TestGame_methodsAreTheProgramsOwn(t *testing.T) {
	typ := reflect.TypeFor[*game.Game]()
	if n := typ.NumMethod(); n > 40 {
		t.Errorf("*Game has %d methods, more than 40", n)
	}
	for _, name := range []string{
		// the runtime's callbacks
		"StepDone", "Route", "Log", "SignalReceived", "SignalReceivedData", "VarChanged", "StampChanged",
		// the live view's plumbing and the editor's files
		"Quietly", "ReplayStep", "Rewind", "CutTrace", "TraceOffset", "TraceKind", "StepHooks", "Notice",
		"SendSignal", "JumpAgent", "InspectAgent", "EditableTrees", "ReadTreeFile", "WriteTreeFile",
		"RemoveTreeFile", "TreeFiles", "CheckTree", "TreeLoader", "LoadTree", "LoadTreeFile",
		// benchmarks' and the loop's insides
		"MeasurePhases", "Phases", "RunStep",
	} {
		if _, ok := typ.MethodByName(name); ok {
			t.Errorf("*Game has the method %s, which is not a program's", name)
		}
	}
	var g any = (*game.Game)(nil)
	if _, ok := g.(runtime.Observer); ok {
		t.Error("*Game is a runtime.Observer")
	}
	if _, ok := g.(runtime.ChangeObserver); ok {
		t.Error("*Game is a runtime.ChangeObserver")
	}
	if _, ok := g.(runtime.Router); ok {
		t.Error("*Game is a runtime.Router")
	}
}
