package game

import "github.com/btrun/btrun/runtime"

// DebugHost is what a debugger may do to the game it is attached to
// beyond the methods a program calls: replay steps quietly for time
// travel and take the trace back, signal and jump agents as "debugger",
// show an agent's Lua data, and, for an editor, read, check and write the
// game's tree files. AttachDebugger hands it to the debugger
// (Debugger.Attached); a program that embeds a game never needs it, and
// does not meet these methods on Game.
//
// Its methods are called on the game's goroutine, like the debugger's, but
// for EditableTrees and TreeLoader, which read only what does not change
// while the game runs.
type DebugHost interface {
	// Time travel (the live view's timeline).
	Quietly(f func() error) error
	ReplayStep() error
	Rewind(state []byte) error
	StepHooks() bool
	TraceKind() string
	TraceOffset() int64
	CutTrace(off int64) error
	Notice(msg string)

	// Commands from the page, and what it shows.
	SendSignal(agent, signal string, data runtime.Value) error
	JumpAgent(agent, id string) error
	SetAgentVar(agent, name string, v runtime.VarValue) error
	InspectAgent(a *runtime.Agent, budget int) (agent, memory, state any)

	// The editor's files.
	EditableTrees() error
	TreeFiles(name string) ([]string, error)
	ReadTreeFile(file string) ([]byte, error)
	CheckTree(name string, override map[string][]byte) (*runtime.Tree, []TreeProblem)
	TreeLoader() TreeLoader
	WriteTreeFile(file string, data []byte, create bool) error
	RemoveTreeFile(file string) error
	// Reload is the editor's save's reload: Game.Reload, or on a
	// cluster's conductor the whole cluster's (Conductor.Reload).
	Reload(opts ReloadOptions) (*ReloadReport, error)

	// The page's Open save (debug_saves.go).
	Saves() ([]string, error)
	LoadSave(name string) ([]string, error)
}

// debugHost is the Game as its debugger sees it (DebugHost): the *Game
// itself, converted, so that these methods are not Game's.
type debugHost Game

// host is g as a DebugHost.
func (g *Game) host() *debugHost { return (*debugHost)(g) }

var _ DebugHost = (*debugHost)(nil)
