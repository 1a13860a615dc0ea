package sdk

import (
	"errors"
	"fmt"
)

// Plugin is what a plugin executable serves: its actions, conditions and
// scorers, declared by name. Hand it to Serve in main.
type Plugin struct {
	Name       string // the plugin's name for itself, shown in logs
	Actions    []Action
	Conditions []Condition
	Scorers    []Scorer
}

// Action declares one action. Run is required; Start and Cancel are
// optional.
//
// Start runs before Run on the call where Call.FirstRun is set (the cursor
// has just arrived at the rule), in the same round trip. Cancel runs when
// the runtime leaves the rule while the action last returned Running (a
// jump, its conditions failing, a reset, the agent removed); it may set
// fields and send effects but not jump.
//
// Reads and Writes name the agent fields the action sees and may set (see
// docs/plugins.md): only declared fields travel. Reads named
// bt.gate.NAME.slot, bt.gate.NAME.open and bt.gate.NAME.holders carry the
// state of the agent's gate NAME instead (docs/plugins.md, "Gates").
//
// The functions are called concurrently for different agents and must not
// keep per-agent state outside the Call: plugins are stateless between
// calls, and everything an agent needs next time goes in the state bytes.
type Action struct {
	Name   string
	Reads  []string
	Writes []string
	Start  func(c *Call) error
	Run    func(c *Call) (Status, error)
	Cancel func(c *Call) error

	// Doc says what the action does, and Params declares the rule
	// parameters it reads: `btrun validate -v` lists them, and `btrun
	// validate` warns about a parameter of its rules that nothing reads
	// ("nav.sped" for "nav.speed"). Nil declares nothing (no warning is
	// possible); NoParams declares that it reads none.
	Doc    string
	Params []ParamInfo

	// Stimuli names the signals whose stimuli (the data of the last such
	// signal the agent received, and its age) each call of the action
	// carries: Call.Stimulus reads them. Only declared ones travel.
	Stimuli []string
}

// Condition declares one condition. Test may read fields and parameters; it
// cannot change the agent.
type Condition struct {
	Name  string
	Reads []string
	Test  func(c *Call) (bool, error)

	Doc    string
	Params []ParamInfo // as Action.Params
}

// ParamInfo declares one rule parameter an action or condition reads.
type ParamInfo struct {
	Name     string // as a tree writes it: "nav.speed"
	Type     string // what the value is: "number", "seconds", "string", ...
	Required bool
	Default  string // the value when it is not given
	Doc      string
}

// NoParams declares that an action or condition reads no parameter.
var NoParams = []ParamInfo{}

// Scorer declares one scorer: Score returns a number for the agent, the
// score of a child of a score choice whose parameter choice.score names it
// (Call.Params are that child's, Call.Rule its label). Children are tried
// highest score first, and not at all when their score is <= 0; a score
// that is not a finite number is an error of the agent's step. Score may
// read fields and parameters; it cannot change the agent.
type Scorer struct {
	Name  string
	Reads []string
	Score func(c *Call) (float64, error)
}

// Errors of the SDK.
var (
	// ErrInvalidPlugin marks a Plugin declaration that cannot be served.
	ErrInvalidPlugin = errors.New("sdk: invalid plugin")
	// ErrUnknownName marks a call for an action, condition or scorer the
	// plugin does not declare.
	ErrUnknownName = errors.New("sdk: unknown name")
	// ErrUndeclaredField marks a write to a field not in Action.Writes.
	ErrUndeclaredField = errors.New("sdk: undeclared field")
	// ErrBadParam marks a parameter that does not parse as asked.
	ErrBadParam = errors.New("sdk: bad parameter")
)

// validate checks the declarations: names non-empty and unique per kind,
// Run, Test and Score set, no field listed twice.
func (p *Plugin) validate() error {
	var errs []error
	seen := map[string]bool{}
	for i, a := range p.Actions {
		switch {
		case a.Name == "":
			errs = append(errs, fmt.Errorf("%w: action %d has no name", ErrInvalidPlugin, i))
		case seen[a.Name]:
			errs = append(errs, fmt.Errorf("%w: action %q is declared twice", ErrInvalidPlugin, a.Name))
		}
		seen[a.Name] = true
		if a.Run == nil {
			errs = append(errs, fmt.Errorf("%w: action %q has no Run function", ErrInvalidPlugin, a.Name))
		}
		errs = append(errs, uniqueFields("action", a.Name, "Reads", a.Reads), uniqueFields("action", a.Name, "Writes", a.Writes),
			uniqueFields("action", a.Name, "Stimuli", a.Stimuli))
	}
	seen = map[string]bool{}
	for i, c := range p.Conditions {
		switch {
		case c.Name == "":
			errs = append(errs, fmt.Errorf("%w: condition %d has no name", ErrInvalidPlugin, i))
		case seen[c.Name]:
			errs = append(errs, fmt.Errorf("%w: condition %q is declared twice", ErrInvalidPlugin, c.Name))
		}
		seen[c.Name] = true
		if c.Test == nil {
			errs = append(errs, fmt.Errorf("%w: condition %q has no Test function", ErrInvalidPlugin, c.Name))
		}
		errs = append(errs, uniqueFields("condition", c.Name, "Reads", c.Reads))
	}
	seen = map[string]bool{}
	for i, c := range p.Scorers {
		switch {
		case c.Name == "":
			errs = append(errs, fmt.Errorf("%w: scorer %d has no name", ErrInvalidPlugin, i))
		case seen[c.Name]:
			errs = append(errs, fmt.Errorf("%w: scorer %q is declared twice", ErrInvalidPlugin, c.Name))
		}
		seen[c.Name] = true
		if c.Score == nil {
			errs = append(errs, fmt.Errorf("%w: scorer %q has no Score function", ErrInvalidPlugin, c.Name))
		}
		errs = append(errs, uniqueFields("scorer", c.Name, "Reads", c.Reads))
	}
	return errors.Join(errs...)
}

func uniqueFields(kind, name, list string, fields []string) error {
	seen := map[string]bool{}
	for _, f := range fields {
		if f == "" || seen[f] {
			return fmt.Errorf("%w: %s %q: %s lists %q twice or empty", ErrInvalidPlugin, kind, name, list, f)
		}
		seen[f] = true
	}
	return nil
}

// describe builds the Describe reply.
func (p *Plugin) describe() *Description {
	d := &Description{Plugin: p.Name, SDKVersion: Version}
	for _, a := range p.Actions {
		d.Actions = append(d.Actions, ActionInfo{Name: a.Name, Reads: a.Reads, Writes: a.Writes,
			HasStart: a.Start != nil, HasCancel: a.Cancel != nil, Doc: a.Doc, Params: a.Params, Stimuli: a.Stimuli})
	}
	for _, c := range p.Conditions {
		d.Conditions = append(d.Conditions, ConditionInfo{Name: c.Name, Reads: c.Reads, Doc: c.Doc, Params: c.Params})
	}
	for _, c := range p.Scorers {
		d.Scorers = append(d.Scorers, ScorerInfo{Name: c.Name, Reads: c.Reads})
	}
	return d
}
