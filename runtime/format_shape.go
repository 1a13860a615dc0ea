package runtime

// The tree format as the loader reads it, as data: each tag with the
// attributes the loader accepts on it and what it holds, taken from the
// loader's own lists (load_check.go), so it cannot drift from what the
// loader does. It is engine-side: package runtime/formatspec adds the
// descriptions and makes the reference page, the XML schema and the
// editor's palette from it; a game never needs it.

// FormatShape is the format's tags, in the order the loader's messages
// list them, and the closed lists of values some attributes take.
type FormatShape struct {
	Tags []TagShape
	// Values holds the values an attribute may take when they are a
	// closed list, by "tag attribute" or, for one that means the same on
	// every tag, by "attribute".
	Values map[string][]string
	// CondModes are the values of <conditionMode>.
	CondModes []string
	// CustomAttrs are the attributes every rule registered from Go takes.
	CustomAttrs []string
	// ListChildren are the tags a list rule holds (its rules and their
	// details); a rule registered from Go holds them too.
	ListChildren []string
}

// TagShape is one tag of the format.
type TagShape struct {
	Tag    string
	Kind   string // "root", "rule", "detail" (inside a rule), "block" (a declaration block), "declaration"
	Attrs  []string
	Inside []string // the tags it holds, in the order messages list them
	Text   string   // what its text is, "" when it holds no text
}

// LoaderFormat describes the format the loader reads.
func LoaderFormat() FormatShape {
	var out []TagShape
	add := func(tag, kind string, attrs []string, inside []string, text string) {
		out = append(out, TagShape{Tag: tag, Kind: kind, Attrs: attrs, Inside: inside, Text: text})
	}
	add("behaviorTree", "root", nil, topTags, "")
	for _, tag := range ruleTags {
		switch kind := ruleKinds[tag]; {
		case tag == "subtree" || tag == "subTree":
			add(tag, "rule", listAttrs, nil, "the path of a tree file")
		case kind == KindAction:
			add(tag, "rule", actionAttrs, ruleDetails, "")
		case kind == KindChoice:
			add(tag, "rule", choiceAttrs, listChildren, "")
		case kind == KindParallel:
			add(tag, "rule", parallelAttrs, listChildren, "")
		case kind == KindSlot:
			add(tag, "rule", slotAttrs, ruleDetails, "")
		case kind == KindStateMachine:
			add(tag, "rule", machineAttrs, machineChildren, "")
		case kind.IsList():
			add(tag, "rule", listAttrs, listChildren, "")
		default:
			add(tag, "rule", leafAttrs, ruleDetails, "")
		}
	}
	add("parameter", "detail", parameterAttrs, nil, "the value (trimmed; empty is \"\")")
	add("condition", "detail", nil, nil, "a condition name or a comparison, optionally negated with a leading !")
	add("conditionMode", "detail", nil, nil, "allTrue, anyTrue, anyFalse or allFalse")
	add("state", "detail", stateAttrs, stateChildren, "")
	add("transition", "detail", transitionAttrs, nil, "")
	add("variables", "block", nil, []string{"variable"}, "")
	add("variable", "declaration", variableAttrs, nil, "")
	add("signals", "block", nil, []string{"signal"}, "")
	add("signal", "declaration", signalAttrs, nil, "")
	add("timestamps", "block", nil, []string{"timestamp"}, "")
	add("timestamp", "declaration", stampAttrs, nil, "")
	add("gates", "block", nil, []string{"gate"}, "")
	add("gate", "declaration", gateAttrs, nil, "")
	add("include", "block", includeAttrs, nil, "")
	return FormatShape{
		Tags: out,
		Values: map[string][]string{
			"abort":             abortNames[:],
			"order":             orderNames[:],
			"type":              varTypeNames[:],
			"transition result": transitionResult,
		},
		CondModes:    condModeNames[:],
		CustomAttrs:  customAttrs,
		ListChildren: listChildren,
	}
}

// ChildRange is how many children the rule takes: at least least, and at
// most most (0: no limit).
func (d *RuleDecl) ChildRange() (least, most int) { return d.kids() }
