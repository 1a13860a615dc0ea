package runtime

import (
	"math"
	"strconv"
	"strings"
)

// The built-in actions of SPEC §5. Each binds per rule: parameters are
// parsed and names resolved to slots once, so Run does no look-up by name.
// Their per-rule state (a start time, a signal mark) lives in Agent.ruleWord.

func registerBuiltins(r *Registry) {
	for _, d := range builtinActions() {
		d.Origin = originBuiltin
		if err := r.AddAction(d); err != nil {
			panic(err) // the built-in table itself is wrong: a programmer error
		}
	}
	for _, d := range builtinHooks() { // hooks_builtin.go
		d.Origin = originBuiltin
		if err := r.AddHook(d); err != nil {
			panic(err)
		}
	}
}

// builtinActions is the table of built-in actions with what they declare:
// the reference documentation is generated from it.
func builtinActions() []ActionDef {
	signalName := ParamSpec{Name: "signal.name", Type: "signal name", Required: true, Doc: "the signal"}
	stampName := ParamSpec{Name: "timestamp.name", Type: "timestamp name", Required: true, Doc: "a timestamp the tree declares"}
	return []ActionDef{
		{Name: "bt.wait", Bind: bindWait,
			Doc: "running until `wait.seconds` have passed since the action started, then success",
			Params: []ParamSpec{{Name: "wait.seconds", Type: "seconds", Required: true,
				Doc: "how long to wait (a finite number >= 0); 0 succeeds at the first run"}}},
		{Name: "bt.signal.wait", Bind: bindSignalWait,
			Doc:    "running until the agent receives `signal.name` after the action started, then success; the signal need not be declared",
			Params: []ParamSpec{signalName}},
		{Name: "bt.signal.send", Bind: bindSignalSend, Instant: true,
			Doc: "sends `signal.name`, then success; to itself it applies at once, to others after every agent has stepped",
			Params: []ParamSpec{signalName, {Name: "signal.to", Type: "agent id, self or all", Default: "self",
				Doc: "the receiver: `self`, another agent's id, or `all` (every agent, this one included)"},
				{Name: signalDataPrefix + "KEY", Family: true, Type: "number, boolean or string",
					Doc: "the signal's data: each such parameter is one entry of a table, `KEY` its key (`signal.data.hp`: key `hp`; dots nest, `signal.data.at.x`: `{at = {x = ...}}`; a key of digits is an integer key); a value that reads as a number is a number, `true` and `false` are booleans, anything else a string; without any, the signal carries no data"}}},
		{Name: "bt.stimulus.forget", Bind: bindForget, Instant: true,
			Doc:    "the agent forgets its stimulus of `signal.name` (the data and time of the last such signal it received), then success; the signal need not be declared",
			Params: []ParamSpec{signalName}},
		{Name: "bt.variable.set", Bind: bindVariableSet, Instant: true,
			Doc: "sets a declared variable (`variable.value`) or adds to a number variable (`variable.add`), then success; exactly one of the two",
			Params: []ParamSpec{
				{Name: "variable.name", Type: "variable name", Required: true, Doc: "a variable the tree declares"},
				{Name: "variable.value", Type: "value of the variable's type", Doc: "the new value, written as the variable's default is: `true` or `false`, a number, any text for a string, `x,y,z` for a vector"},
				{Name: "variable.add", Type: "number", Doc: "a number added to a number variable (negative to subtract); the sum must stay finite"},
			}},
		{Name: "bt.timestamp.set", Bind: bindTimestampSet, Instant: true,
			Doc:    "sets a declared timestamp to the agent's time (clearing its exclusive partner), then success",
			Params: []ParamSpec{stampName}},
		{Name: "bt.timestamp.clear", Bind: bindTimestampClear, Instant: true,
			Doc:    "unsets a declared timestamp, then success",
			Params: []ParamSpec{stampName}},
		{Name: "bt.timestamp.wait", Bind: bindTimestampWait,
			Doc: "running until more than `timestamp.moreThan` seconds have passed since the timestamp was set (or, while it is unset, only if `timestamp.orNeverSet` is true), then success",
			Params: []ParamSpec{stampName,
				{Name: "timestamp.moreThan", Type: "seconds", Required: true, Doc: "seconds since the timestamp was set (a finite number >= 0)"},
				{Name: "timestamp.orNeverSet", Type: "boolean", Default: "false", Doc: "succeed while the timestamp is unset"},
			}},
		{Name: "bt.gate.wait", Bind: bindGateWait,
			Doc: "running until the gate `gate.name` has at least `gate.users` holders (as of the last round's end; for an agent holding it: had them since it took it), then success: a rendezvous, where the agents that took a gate wait for each other",
			Params: []ParamSpec{
				{Name: "gate.name", Type: "gate name", Required: true, Doc: "a gate the tree declares"},
				{Name: "gate.users", Type: "count >= 1", Default: "the gate's users", Doc: "how many holders to wait for: at most the gate's users (a bind error above, since the wait would never end)"},
			}},
		{Name: "bt.log", Bind: bindLog, Instant: true,
			Doc:    "writes `log.message` to the agent's log (with its id, time and the rule's label), then success",
			Params: []ParamSpec{{Name: "log.message", Type: "string", Required: true, Doc: "the text; may be empty"}}},
	}
}

// startTime records the action's start time on its first run and returns it.
func (a *Agent) startTime() float64 {
	if a.flags&flagFirstRun != 0 {
		a.ruleWord = math.Float64bits(a.time)
	}
	return math.Float64frombits(a.ruleWord)
}

type waitAction struct{ seconds float64 }

func bindWait(s *Site) (Action, error) {
	sec, err := secondsParam(s.Params, "wait.seconds", true)
	if err != nil {
		return nil, s.Errorf("bt.wait: %v", err)
	}
	return &waitAction{sec}, nil
}

func (w *waitAction) Run(a *Agent, _ Params) (Status, error) {
	if a.time-a.startTime() >= w.seconds {
		return Success, nil
	}
	return Running, nil
}

type signalWaitAction struct{ slot int32 }

func bindSignalWait(s *Site) (Action, error) {
	name, err := stringParam(s.Params, "signal.name")
	if err != nil {
		return nil, s.Errorf("bt.signal.wait: %v", err)
	}
	return &signalWaitAction{s.SignalSlot(name)}, nil
}

func (w *signalWaitAction) Run(a *Agent, _ Params) (Status, error) {
	b := a.bound
	if a.flags&flagFirstRun != 0 {
		a.ruleWord = a.slab[b.seqIndex]
	}
	if a.slab[b.signalBase+int(w.slot)] > a.ruleWord {
		return Success, nil
	}
	return Running, nil
}

type signalSendAction struct {
	name string
	to   string
	slot int32
	data Value // bound once from the signal.data.KEY parameters; never changed
}

func bindSignalSend(s *Site) (Action, error) {
	name, err := stringParam(s.Params, "signal.name")
	if err != nil {
		return nil, s.Errorf("bt.signal.send: %v", err)
	}
	to, ok := s.Params.Get("signal.to")
	if !ok || to == "" {
		to = "self"
	}
	data, err := paramData(s.Params, signalDataPrefix)
	if err != nil {
		return nil, s.Errorf("bt.signal.send: %v", err)
	}
	return &signalSendAction{name: name, to: to, slot: s.SignalSlot(name), data: data}, nil
}

func (x *signalSendAction) Run(a *Agent, _ Params) (Status, error) {
	if x.to == "self" || x.to == a.id {
		if err := a.checkSets(x.slot, &x.data); err != nil {
			return 0, err
		}
		if err := a.admitStimulus(x.name, &x.data); err != nil {
			return 0, err
		}
		a.signalSlot(x.slot, &x.data, a.time)
		return Success, a.owe(x.name, &x.data, a.time)
	}
	if err := a.Send(x.to, x.name, x.data); err != nil {
		return 0, err
	}
	return Success, nil
}

type variableSetAction struct {
	slot  int32
	value bool
}

func bindVariableSet(s *Site) (Action, error) {
	name, err := stringParam(s.Params, "variable.name")
	if err != nil {
		return nil, s.Errorf("bt.variable.set: %v", err)
	}
	slot, ok := s.Tree.VarIndex(name)
	if !ok {
		return nil, s.Errorf("bt.variable.set: no variable %q is declared", name)
	}
	if s.Tree.Vars[slot].Type != VarBoolean || hasParam(s.Params, "variable.add") {
		return bindVariableSetTyped(s, slot) // vars_set.go
	}
	if _, ok := s.Params.Get("variable.value"); !ok {
		return nil, s.Errorf("bt.variable.set: needs parameter %q (true or false)", "variable.value")
	}
	v, err := boolParam(s.Params, "variable.value", false)
	if err != nil {
		return nil, s.Errorf("bt.variable.set: %v", err)
	}
	return &variableSetAction{slot, v}, nil
}

func (x *variableSetAction) Run(a *Agent, _ Params) (Status, error) {
	a.SetVarAt(x.slot, x.value)
	return Success, nil
}

func stampParam(s *Site, action string) (int32, error) {
	name, err := stringParam(s.Params, "timestamp.name")
	if err != nil {
		return 0, s.Errorf("%s: %v", action, err)
	}
	slot, ok := s.Tree.StampIndex(name)
	if !ok {
		return 0, s.Errorf("%s: no timestamp %q is declared", action, name)
	}
	return slot, nil
}

type timestampSetAction struct{ slot int32 }

func bindTimestampSet(s *Site) (Action, error) {
	slot, err := stampParam(s, "bt.timestamp.set")
	if err != nil {
		return nil, err
	}
	return &timestampSetAction{slot}, nil
}

func (x *timestampSetAction) Run(a *Agent, _ Params) (Status, error) {
	a.SetStampAt(x.slot, a.time)
	return Success, nil
}

type timestampClearAction struct{ slot int32 }

func bindTimestampClear(s *Site) (Action, error) {
	slot, err := stampParam(s, "bt.timestamp.clear")
	if err != nil {
		return nil, err
	}
	return &timestampClearAction{slot}, nil
}

func (x *timestampClearAction) Run(a *Agent, _ Params) (Status, error) {
	a.ClearStampAt(x.slot)
	return Success, nil
}

type timestampWaitAction struct {
	slot     int32
	moreThan float64
	orNever  bool
}

func bindTimestampWait(s *Site) (Action, error) {
	slot, err := stampParam(s, "bt.timestamp.wait")
	if err != nil {
		return nil, err
	}
	more, err := secondsParam(s.Params, "timestamp.moreThan", true)
	if err != nil {
		return nil, s.Errorf("bt.timestamp.wait: %v", err)
	}
	never, err := boolParam(s.Params, "timestamp.orNeverSet", false)
	if err != nil {
		return nil, s.Errorf("bt.timestamp.wait: %v", err)
	}
	return &timestampWaitAction{slot, more, never}, nil
}

func (x *timestampWaitAction) Run(a *Agent, _ Params) (Status, error) {
	t, set := a.StampAt(x.slot)
	if (set && a.time-t > x.moreThan) || (!set && x.orNever) {
		return Success, nil
	}
	return Running, nil
}

type logAction struct{ msg string }

func bindLog(s *Site) (Action, error) {
	msg, ok := s.Params.Get("log.message")
	if !ok {
		return nil, s.Errorf("bt.log: needs parameter %q", "log.message")
	}
	return &logAction{msg}, nil
}

func (x *logAction) Run(a *Agent, _ Params) (Status, error) {
	a.Log(x.msg)
	return Success, nil
}

type gateWaitAction struct {
	slot  int32
	users int
}

func bindGateWait(s *Site) (Action, error) {
	name, err := stringParam(s.Params, "gate.name")
	if err != nil {
		return nil, s.Errorf("bt.gate.wait: %v", err)
	}
	slot, ok := s.Tree.GateIndex(name)
	if !ok {
		return nil, s.Errorf("bt.gate.wait: no gate %q is declared", name)
	}
	users := s.Tree.Gates[slot].Users
	if v, ok := s.Params.Get("gate.users"); ok {
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 31)
		if err != nil || n < 1 {
			return nil, s.Errorf("bt.gate.wait: parameter %q = %q is not a count >= 1", "gate.users", v)
		}
		users = int(n)
		// The gate never has more holders than its users: such a wait
		// would never end.
		if max := s.Tree.Gates[slot].Users; users > max {
			return nil, s.Errorf("bt.gate.wait: parameter %q = %q waits for more holders than gate %q lets in at once (users=\"%d\"): it would wait for ever; expected a count from 1 to %d",
				"gate.users", v, name, max, max)
		}
	}
	return &gateWaitAction{slot, users}, nil
}

// Run succeeds when the gate has users holders, or, for an agent holding
// it, had them at the end of a round since it took it: an agent that meets
// the others and at once moves on (and releases the gate) does not leave
// the ones that waited for it waiting for ever.
func (x *gateWaitAction) Run(a *Agent, _ Params) (Status, error) {
	st := a.gate(x.slot)
	if len(st.holders) >= x.users {
		return Success, nil
	}
	if a.holds(x.slot) {
		if k := st.slot(a); k > 0 && st.holders[k-1].seen >= x.users {
			return Success, nil
		}
	}
	return Running, nil
}
