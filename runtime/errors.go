package runtime

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error the package returns wraps one of these (or the
// error an action or condition returned), so callers can test with errors.Is.
var (
	// ErrInvalidTree marks a problem in a tree file found while loading.
	ErrInvalidTree = errors.New("runtime: invalid tree")
	// ErrSeveralRoots marks a main tree file with more than one top-level
	// rule (it also wraps ErrInvalidTree). Such a file loads as a subtree
	// file (LoadOptions.Subtree).
	ErrSeveralRoots = fmt.Errorf("%w: several top-level rules in a main file", ErrInvalidTree)
	// ErrUnbound marks an action, condition, variable, timestamp or signal
	// name that binding could not resolve, or a parameter it could not parse.
	ErrUnbound = errors.New("runtime: unbound name")
	// ErrDuplicate marks a name registered twice.
	ErrDuplicate = errors.New("runtime: duplicate name")
	// ErrRunaway marks a step that ran more rules than the run-away limit.
	ErrRunaway = errors.New("runtime: run-away step")
	// ErrUnknownID marks a jump or restore to an id the tree does not have.
	ErrUnknownID = errors.New("runtime: unknown rule id")
	// ErrPending is returned by an Action or Condition whose answer comes
	// later: the agent's step pauses and resumes with Agent.CompleteAction or
	// Agent.CompleteCondition. This is how plugin calls are batched.
	ErrPending = errors.New("runtime: answer pending")
	// ErrBusy marks a call that the agent's current phase does not allow:
	// stepping an agent whose step is paused, completing a call that is not
	// pending.
	ErrBusy = errors.New("runtime: agent busy")
	// ErrAction marks an error raised by an action or condition while stepping.
	ErrAction = errors.New("runtime: action failed")
)

// Pos is a position in a tree file. Line and Col start at 1; Col counts
// characters, not bytes.
type Pos struct {
	File string
	Line int
	Col  int
}

func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is the one error type of the package: a message with the position
// and rule it concerns, wrapping a sentinel or the underlying cause.
type Error struct {
	Pos   Pos    // where in a tree file, if known
	Label string // the rule's label, if the error concerns a rule
	Agent string // the agent's id, if the error happened while stepping
	Msg   string
	Err   error // wrapped: a sentinel above or the cause
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Pos.File != "" {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	}
	if e.Agent != "" {
		b.WriteString("agent ")
		b.WriteString(e.Agent)
		b.WriteString(": ")
	}
	if e.Label != "" {
		b.WriteString("rule ")
		b.WriteString(e.Label)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// ErrorList holds every problem found in one pass (loading or binding).
type ErrorList []*Error

func (l ErrorList) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap lets errors.Is and errors.As look into every listed error.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
