package liveview

import "github.com/btrun/btrun/game"

// gameSide is the Debugger as the game sees it: the game.Debugger and
// game.StepGate methods the game calls between and during its steps. They
// are this type's, not Debugger's, so that a program holding a *Debugger
// meets only what it is meant to call (Handler, Quit, Close). A *gameSide
// is the *Debugger itself, converted.
type gameSide Debugger

var (
	_ game.Debugger = (*gameSide)(nil)
	_ game.StepGate = (*gameSide)(nil)
)
