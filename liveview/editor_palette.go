package liveview

import (
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/formatspec"
)

// GET /api/palette: what the editor offers, read from the code's
// declarations so that the editor needs no change when they grow: the tags
// and attributes of the format (formatspec.Tags, the source of
// docs/reference.md and the XSD), what the game's registry holds (actions,
// conditions and scorers, with the parameters and documentation they
// declare, and the hooks with the parameters they read), the condition forms a
// tree's declarations make, and the parameters the runtime reads on any
// rule. A tree's own names (variables, signals, timestamps, gates) come
// with its source's outline and GET /api/trees/NAME.

type paletteView struct {
	Tags       []paletteTag   `json:"tags"`
	CondModes  []string       `json:"condModes"`
	Actions    []paletteName  `json:"actions"`
	Conditions []paletteName  `json:"conditions"`
	Declared   []paletteName  `json:"declared"` // condition forms: VARIABLE, T.set, G.open, ...
	Scorers    []paletteName  `json:"scorers"`
	Hooks      []paletteName  `json:"hooks"`
	RuleParams []paletteParam `json:"ruleParams"`
	Trees      []string       `json:"trees"`
}

type paletteTag struct {
	Tag    string        `json:"tag"`
	Kind   string        `json:"kind"` // root, rule, detail, block, declaration
	Doc    string        `json:"doc"`
	Attrs  []paletteAttr `json:"attrs"`
	Inside []string      `json:"inside"`
	Text   string        `json:"text,omitempty"`
}

type paletteAttr struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Required bool     `json:"required,omitempty"`
	Default  string   `json:"default,omitempty"`
	Values   []string `json:"values,omitempty"`
	Doc      string   `json:"doc"`
	// Complete names what completes the value: "values", "boolean",
	// "actions", "gates", "hooks", "trees", "variables", "signals",
	// "timestamps"; "" for free text.
	Complete string `json:"complete,omitempty"`
}

type paletteName struct {
	Name    string         `json:"name"`
	Origin  string         `json:"origin,omitempty"`
	Doc     string         `json:"doc,omitempty"`
	Params  []paletteParam `json:"params"`
	Instant bool           `json:"instant,omitempty"`
	// Declares says whether the name declares its parameters: when it does
	// not, it may read any.
	Declares bool `json:"declares"`
}

type paletteParam struct {
	Name     string `json:"name"`
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required,omitempty"`
	Default  string `json:"default,omitempty"`
	Doc      string `json:"doc,omitempty"`
}

// completions says what completes an attribute's value, by "tag attribute"
// or, for one that means the same on every tag, by attribute.
var completions = map[string]string{
	"action name": "actions", "gate": "gates", "enter": "hooks", "exit": "hooks",
	"slot default": "trees", "signal variable": "variables", "timestamp setOnSignal": "signals",
	"timestamp exclusiveTo": "timestamps",
}

func (d *Debugger) paletteView() paletteView {
	v := paletteView{CondModes: formatspec.CondModes(), Trees: d.g.TreeNames(), Hooks: []paletteName{}, Scorers: []paletteName{}}
	for _, t := range d.format().specs {
		pt := paletteTag{Tag: t.Tag, Kind: t.Kind, Doc: t.Doc, Attrs: []paletteAttr{}, Inside: t.Inside, Text: t.Text}
		if pt.Inside == nil {
			pt.Inside = []string{}
		}
		for _, a := range t.Attrs {
			pa := paletteAttr{Name: a.Name, Type: a.Type, Required: a.Required, Default: a.Default, Values: a.Values, Doc: a.Doc}
			pa.Complete = completions[t.Tag+" "+a.Name]
			switch {
			case pa.Complete != "":
			case completions[a.Name] != "":
				pa.Complete = completions[a.Name]
			case len(a.Values) > 0:
				pa.Complete = "values"
			case a.Type == "boolean":
				pa.Complete = "boolean"
			}
			pt.Attrs = append(pt.Attrs, pa)
		}
		v.Tags = append(v.Tags, pt)
	}
	reg := d.g.Registry()
	for _, a := range reg.Actions() {
		v.Actions = append(v.Actions, paletteName{Name: a.Name, Origin: a.Origin.String(), Doc: a.Doc, Params: params(a.Params), Instant: a.Instant, Declares: a.Params != nil})
	}
	for _, c := range reg.Conditions() {
		v.Conditions = append(v.Conditions, paletteName{Name: c.Name, Origin: c.Origin.String(), Doc: c.Doc, Params: params(c.Params), Declares: c.Params != nil})
	}
	for _, f := range runtime.DeclaredConditions {
		v.Declared = append(v.Declared, paletteName{Name: f.Name, Origin: "declared by the tree", Doc: f.Doc, Params: params(f.Params), Declares: true})
	}
	for _, s := range reg.Scorers() {
		v.Scorers = append(v.Scorers, paletteName{Name: s.Name, Origin: s.Origin.String(), Params: []paletteParam{}})
	}
	for _, h := range reg.Hooks() { // with their parameters: the built-in bt.log and bt.lua read the rule's
		v.Hooks = append(v.Hooks, paletteName{Name: h.Name, Origin: h.Origin.String(), Doc: h.Doc, Params: params(h.Params), Declares: h.Params != nil})
	}
	v.RuleParams = params(runtime.RuleParams)
	return v
}

func params(ps []runtime.ParamSpec) []paletteParam {
	out := make([]paletteParam, len(ps))
	for i, p := range ps {
		out[i] = paletteParam{Name: p.Name, Type: p.Type, Required: p.Required, Default: p.Default, Doc: p.Doc}
	}
	return out
}
