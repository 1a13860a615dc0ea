package formatspec

import (
	"fmt"
	"slices"

	"github.com/btrun/btrun/runtime"
)

// Tag describes one tag of the format.
type Tag struct {
	Tag    string
	Kind   string // "root", "rule", "detail" (inside a rule), "block" (a declaration block), "declaration"
	Doc    string
	Attrs  []Attr
	Inside []string // the tags it holds, in the order messages list them
	Text   string   // what its text is, "" when it holds no text
	// Params are a registered rule's <parameter>s (TagsFor); its Origin
	// says where it comes from. Both empty for the format's tags.
	Params []runtime.ParamSpec
	Origin string
}

// Attr describes one attribute of a tag.
type Attr struct {
	Name     string
	Type     string // "boolean", "id", "name", "bool value", ...
	Required bool
	Default  string
	Values   []string // the values it may take, when they are a closed list
	Doc      string
}

// attrDocs describes each attribute, by "tag attribute" or, for one that
// means the same on every tag, by "attribute".
var attrDocs = map[string]Attr{
	"action name":           {Type: "name", Required: true, Doc: "the action to run: a built-in, or one a script or plugin registers"},
	"id":                    {Type: "id", Doc: "the rule's id (`.x` is prefixed with the closest enclosing sequence, choice, parallel, stateMachine or rule registered from Go that has an id); needed to jump to the rule and to save an agent whose current rule it is"},
	"doNotFail":             {Type: "boolean", Default: "false", Doc: "`true` turns the rule's failure into success"},
	"loop":                  {Type: "boolean", Default: "false", Doc: "`true`: a sequence starts over after its last child; a choice after a child succeeded"},
	"abort":                 {Type: "none, self, lower or both", Default: "none", Doc: "watch the rule's conditions while the tree runs elsewhere: `self` aborts the rule when they fail, `lower` lets the rule (a child of a choice) preempt the siblings after it when they pass, `both` does both; the rule must have conditions"},
	"timeout":               {Type: "seconds > 0", Doc: "the rule fails when it has been active that long"},
	"cooldown":              {Type: "seconds > 0", Doc: "the rule fails at once when entered within that time after it was last left"},
	"gate":                  {Type: "name", Doc: "a gate the tree declares: the rule takes it when the cursor arrives (failing at once when the gate is full or cooling down) and holds it while active; an agent holding it already passes"},
	"attempts":              {Type: "count >= 1", Doc: "when the rule finishes with failure (not an abort or a timeout) and has failed fewer than this many times since it became active, it is entered again at once, in the same step, instead of reporting the failure; it stays active meanwhile (its timeout clock, gate and enter hook carry on). Counted before `doNotFail`"},
	"repeat":                {Type: "count >= 1", Doc: "a pass that would finish the rule with success starts it again at its first child until this many passes have succeeded; then it succeeds. A failure ends it at once; the count starts at 0 each time the rule becomes active. Not with `loop`"},
	"enter":                 {Type: "name", Doc: "a hook (`bt.hook`, or one registered from Go) called once when the rule starts: it has been let in and its conditions passed, before its first child or its action runs"},
	"exit":                  {Type: "name", Doc: "a hook called exactly once when a rule that started is left, with how: success, failure, abort, timeout, preempt, jump, cancel, reset or remove; innermost first, after the running action's cancel"},
	"gate name":             {Type: "name", Required: true, Doc: "the gate's name, shared by every tree of the game that declares it"},
	"gate users":            {Type: "count >= 1", Default: "1", Doc: "how many agents may hold the gate at once"},
	"gate cooldown":         {Type: "seconds >= 0", Default: "0", Doc: "after any holder releases the gate, nobody may take it for that long (game time)"},
	"slot id":               {Type: "id", Required: true, Doc: "the slot's id: grafts name the slot by it, and the labels of the tree it runs start with it and a dot"},
	"slot default":          {Type: "name", Doc: "a tree of the game (a `[[trees]]` name) that the slot runs when nothing is grafted into it; without it, such a slot fails"},
	"parallel success":      {Type: "threshold", Default: "all", Doc: "the parallel succeeds once this many lanes are done with success: `all` (every child), `any` (one), or a count N from 1 to the number of children"},
	"parallel failure":      {Type: "threshold", Default: "any", Doc: "the parallel fails once this many lanes are done with failure: `all`, `any` or a count N, as for `success`; it also fails when no lane runs any more and `success` was not reached"},
	"include file":          {Type: "path", Required: true, Doc: "a file of declarations (a `<behaviorTree>` holding only variables, signals, timestamps and gates blocks, and includes), relative to this file's folder; its declarations join the tree as if written here"},
	"stateMachine initial":  {Type: "name", Doc: "the state the machine enters first each time it is entered; without it, its first state"},
	"state name":            {Type: "name", Required: true, Doc: "the state's name, unique in its machine; transitions name their target by it"},
	"transition signal":     {Type: "name", Doc: "a signal the tree declares: when the agent receives it while the machine is in this state, the state's rule is left (its running action cancelled, exit hooks with `preempt`) and the target state's rule runs at the agent's next step (signals arrive between steps: one the game schedules or the world sends for a step's time arrives before that step, which runs the new state; one from another agent or from the agent itself, after its step). Exactly one of `signal` and `result`"},
	"transition result":     {Type: "success or failure", Doc: "when the state's rule finishes with this result, the machine moves on to the target state in the same step (its conditions checked again, as a sequence checks them); without a matching transition the machine finishes with the result"},
	"transition to":         {Type: "name", Required: true, Doc: "the target: the name of a state of the same machine (its own state's name starts that state's rule afresh)"},
	"choice order":          {Type: "list, random, weighted or score", Default: "list", Doc: "the order in which the choice tries its children: document order, a random permutation, a weighted random order (`choice.weight`), or by score (`choice.score`), fixed each time the choice is entered"},
	"parameter name":        {Type: "name", Required: true, Doc: "the parameter's name, by convention `source.parameter`"},
	"variable name":         {Type: "name", Required: true, Doc: "the variable's name"},
	"variable default":      {Type: "value of its type", Doc: "its value in a new agent: `true` or `false` for a boolean (default false), a finite decimal number (default 0), any text for a string (default empty), `x,y,z` for a vector (default 0,0,0); a bad value, NaN or infinity is a load error"},
	"variable type":         {Type: "boolean, number, string or vector", Default: "boolean", Doc: "the variable's type; a condition compares numbers with <, <=, >, >=, == and !=, the others with == and != (`Ammo < 3`, `Target == \"grunt-2\"`)"},
	"signal name":           {Type: "name", Required: true, Doc: "the signal's name"},
	"signal variable":       {Type: "name", Doc: "a declared variable the signal sets (with `value` or `from`)"},
	"signal value":          {Type: "value of the variable's type", Doc: "what the signal sets the variable to, written as the variable's default is; with `variable`, exactly one of `value` and `from`"},
	"signal from":           {Type: "path", Doc: "sets the variable to the value at this path in the signal's data (keys joined by dots, `target.pos`; an all-digit key indexes a list from 1); the data must already have the variable's type (a vector is a table with x, y and z), else the send is the sender's error and nothing is delivered"},
	"signal expires":        {Type: "seconds > 0", Doc: "an agent holds the signal's stimulus (its last data and arrival time, condition `S.held`) until the first step whose time is at least arrival + expires; without it, until the signal arrives again or the agent forgets it"},
	"timestamp name":        {Type: "name", Required: true, Doc: "the timestamp's name"},
	"timestamp setOnSignal": {Type: "name", Doc: "a signal that sets the timestamp to the agent's time when received"},
	"timestamp exclusiveTo": {Type: "name", Doc: "another declared timestamp: setting either clears the other"},
}

var tagDocs = map[string]string{
	"behaviorTree":  "the root element of every tree file; it may carry namespace attributes (`xmlns`, `xmlns:*`, `xsi:*`)",
	"action":        "runs an action; its result is the rule's. Fails without calling it when the rule's conditions fail",
	"sequence":      "runs its children in order: fails when one fails, succeeds after the last",
	"choice":        "tries its children in order until one succeeds; fails when all failed",
	"parallel":      "runs every child side by side, each in a lane of its own, until the `success` or `failure` count of lanes is reached; lanes still running then are cancelled",
	"success":       "succeeds when its conditions pass, else fails",
	"failure":       "always fails (its conditions are not evaluated)",
	"running":       "returns running while its conditions pass, then fails",
	"yield":         "returns running once, then succeeds; fails when its conditions fail",
	"subtree":       "a sequence whose children are the top-level rules of another tree file (its path, relative to this file's folder, is the text)",
	"subTree":       "the same as `subtree`",
	"slot":          "runs the tree grafted into it for this agent (Lua `ctx:graft`), as its only child, else its `default` tree, else fails; a graft takes effect the next time the slot is entered, and the grafted tree's labels are the slot's id, a dot, and the tree's own ids",
	"stateMachine":  "runs one of its states' rules at a time: entered, its `initial` state's; a transition on the rule's result or on a signal the agent receives moves it to another state; it finishes with its state rule's result when no transition takes that result. The current state is the agent's (saved and carried by reload with the cursor)",
	"state":         "a state of its `<stateMachine>`: exactly one rule, and the transitions taken while the machine is in it, first match in document order",
	"transition":    "a transition of its state, on a signal or on the state rule's result, to another state (or the same one, started afresh)",
	"parameter":     "a string parameter of the rule, shared by its action and conditions; a later one with the same name wins",
	"condition":     "a condition of the rule: a name, or a comparison of variables (`Health >= 50`, `Target == \"grunt-2\"`; `<` is written `&lt;` in XML); a leading `!` negates it",
	"conditionMode": "how the rule's conditions combine: `allTrue` (default), `anyTrue`, `anyFalse`, `allFalse`",
	"variables":     "declares variables: booleans, numbers, strings and vectors",
	"variable":      "one variable of every agent running the tree, of a type (boolean by default)",
	"signals":       "declares signals and the variables they set",
	"signal":        "receiving the signal sets a variable to a value or to part of its data (or, with only a name, just declares the signal)",
	"timestamps":    "declares timestamps",
	"timestamp":     "a time an agent remembers: set by a signal, an action or a script",
	"gates":         "declares gates: limits shared by every agent of the game whose tree declares them",
	"include":       "shares declarations between trees: the declarations of another file join this tree's; a file included several times joins once",
	"gate":          "a gate: at most `users` agents hold it at once, and after a release it stays shut for `cooldown` seconds",
}

// Tags describes every tag of the format, in the order the loader's
// messages list them.
func Tags() []Tag {
	shape := runtime.LoaderFormat()
	out := make([]Tag, 0, len(shape.Tags))
	for _, ts := range shape.Tags {
		t := Tag{Tag: ts.Tag, Kind: ts.Kind, Doc: tagDocs[ts.Tag], Inside: ts.Inside, Text: ts.Text}
		for _, a := range ts.Attrs {
			t.Attrs = append(t.Attrs, describe(shape, ts.Tag, a))
		}
		out = append(out, t)
	}
	return out
}

// describe is the attribute a of tag, with its description and its closed
// list of values.
func describe(shape runtime.FormatShape, tag, a string) Attr {
	spec, ok := attrDocs[tag+" "+a]
	if !ok {
		spec, ok = attrDocs[a]
	}
	if !ok {
		panic(fmt.Sprintf("formatspec: attribute %s of <%s> has no description in attrDocs", a, tag))
	}
	spec.Name = a
	if v, ok := shape.Values[tag+" "+a]; ok {
		spec.Values = v
	} else if v, ok := shape.Values[a]; ok {
		spec.Values = v
	}
	return spec
}

// CondModes are the values of <conditionMode>.
func CondModes() []string { return runtime.LoaderFormat().CondModes }

// TagsFor describes the format as a registry's trees see it: the format's
// tags (Tags), in which every place that holds rules also holds the
// registered rules' tags, then one tag per registered rule, sorted by tag,
// with its attributes (those every rule takes), its parameters and what it
// holds. The reference, the XML schema, validate and the live view's
// palette call it where a registry is at hand.
func TagsFor(reg *runtime.Registry) []Tag {
	out := Tags()
	var defs []runtime.RuleDef
	if reg != nil {
		defs = reg.Rules()
	}
	if len(defs) == 0 {
		return out
	}
	shape := runtime.LoaderFormat()
	tags := make([]string, len(defs))
	for i, d := range defs {
		tags[i] = d.Tag
	}
	for i := range out {
		if slices.Contains(out[i].Inside, "action") { // a place that holds rules
			out[i].Inside = append(slices.Clip(out[i].Inside), tags...)
		}
	}
	inside := append(slices.Clip(shape.ListChildren), tags...)
	for _, d := range defs {
		t := Tag{Tag: d.Tag, Kind: "rule", Doc: CustomDoc(&d.RuleDecl), Inside: inside, Params: d.Params, Origin: d.Origin.String()}
		for _, a := range shape.CustomAttrs {
			t.Attrs = append(t.Attrs, describe(shape, "", a))
		}
		out = append(out, t)
	}
	return out
}

// CustomDoc is a registered rule's description, as TagsFor gives it: its
// own, and how many children it takes.
func CustomDoc(d *runtime.RuleDecl) string {
	doc := d.Doc
	if doc == "" {
		doc = "a rule registered from Go"
	}
	least, most := d.ChildRange()
	switch {
	case d.Decorator:
		return doc + " (a decorator: one child rule)"
	case most == 0:
		return doc + fmt.Sprintf(" (a composite: %d or more child rules)", least)
	case least == most:
		return doc + fmt.Sprintf(" (a composite: %d child rules)", least)
	}
	return doc + fmt.Sprintf(" (a composite: %d to %d child rules)", least, most)
}
