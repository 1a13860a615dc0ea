package runtime

// Status is the result of running a rule or a step.
type Status uint8

const (
	// Success: the rule or tree finished and succeeded.
	Success Status = iota + 1
	// Failure: the rule or tree finished and failed.
	Failure
	// Running: the rule is not done; it runs again at the next step.
	Running
	// Paused is a step result only: the step waits at an action or
	// condition call that returned ErrPending.
	Paused
	// Errored is a step result only: the step ended with an error.
	Errored
)

// Moved is the status of a list rule's run that moved the cursor into a
// child (or an action's run that jumped): the new cursor runs next in the
// same step. It appears only in the runs an Observer sees.
const Moved Status = 100

const statusMoved = Moved

var statusNames = [...]string{"none", "success", "failure", "running", "paused", "error"}

func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	if s == statusMoved {
		return "moved"
	}
	return "invalid"
}

// ParseStatus parses "success", "failure" or "running".
func ParseStatus(s string) (Status, bool) {
	switch s {
	case "success":
		return Success, true
	case "failure":
		return Failure, true
	case "running":
		return Running, true
	}
	return 0, false
}
