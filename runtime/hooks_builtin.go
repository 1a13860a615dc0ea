package runtime

import "strings"

// The built-in hooks: what a designer hooks to a rule without a script.
// bt.log writes a rule's own text to the agent's log when the rule starts
// and when it is left, saying how, so that logging where an agent goes
// needs no Lua (enter="bt.log" exit="bt.log").

// The parameters bt.log reads.
const (
	ParamLogEnter = "log.enter"
	ParamLogExit  = "log.exit"
)

// howPlaceholder in log.exit stands for how the rule was left.
const howPlaceholder = "{how}"

func builtinHooks() []HookDef {
	return []HookDef{{Name: "bt.log", Bind: bindLogHook,
		Doc: "writes the rule's `log.enter` to the agent's log (with its id, time and the rule's label) when it is the rule's enter hook, and `log.exit` when it is its exit hook, with `{how}` replaced by how the rule was left (success, failure, abort, timeout, preempt, jump, cancel, reset or remove)",
		Params: []ParamSpec{
			{Name: ParamLogEnter, Type: "string", Doc: "the text written when the rule starts; required with enter=\"bt.log\""},
			{Name: ParamLogExit, Type: "string", Doc: "the text written when the rule is left; required with exit=\"bt.log\"; `{how}` is replaced by how it was left"},
		}}}
}

// logHook holds its texts ready: the one for enter and one per way of
// leaving, so that a call looks nothing up and builds no string.
type logHook struct {
	enter string
	exit  [len(leaveHowNames)]string
}

func bindLogHook(s *Site) (Hook, error) {
	r := &s.Tree.Rules[s.Rule]
	h := &logHook{}
	if r.Enter == s.Name {
		msg, ok := s.Params.Get(ParamLogEnter)
		if !ok {
			return nil, s.Errorf("enter hook bt.log needs parameter %q: the text to write when the rule starts", ParamLogEnter)
		}
		h.enter = msg
	}
	if r.Exit == s.Name {
		msg, ok := s.Params.Get(ParamLogExit)
		if !ok {
			return nil, s.Errorf("exit hook bt.log needs parameter %q: the text to write when the rule is left ({how} says how)", ParamLogExit)
		}
		for i, how := range leaveHowNames {
			h.exit[i] = strings.ReplaceAll(msg, howPlaceholder, how)
		}
	}
	return h, nil
}

func (h *logHook) Call(a *Agent, _ Params, how string) error {
	if how == hookEnter {
		a.Log(h.enter)
		return nil
	}
	for i, name := range leaveHowNames {
		if name == how {
			a.Log(h.exit[i])
			return nil
		}
	}
	a.Log(h.exit[leftReset]) // not reached: the runtime passes only those names
	return nil
}
