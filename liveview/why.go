package liveview

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/btrun/btrun/runtime"
)

// Why: the game records, for every step the live view sees, the reasons
// behind it (runtime.Env.Explain, set by game.AttachDebugger). The view
// keeps, per rule of each agent, the last of them: why the rule last
// passed or failed its conditions, was refused, or how its choice ordered
// its children, with the step; time travel restores them with the rest of
// the agent's records (recState).

// whyRec is a rule's last reason: its text and step; step 0: none.
type whyRec struct {
	step uint64
	text string
}

// whyView is one rule's last reason, for the page.
type whyView struct {
	Rule  int32  `json:"rule"`
	Label string `json:"label"`
	Step  uint64 `json:"step"`
	Text  string `json:"text"`
}

// noteWhys keeps the reasons of the agent's step that just ended. A rule
// with several conditions gets them all, in the order they were evaluated.
// An action that failed this step with no condition of it false then failed
// on its own: its reason says so (an older condition's would be blamed).
func (r *agentRec) noteWhys(a *runtime.Agent, step uint64, runs []runtime.RuleRun) {
	whys := a.Whys()
	if len(whys) == 0 && !actionFailed(a, runs) {
		return
	}
	rules := a.Tree().Tree.Rules
	if len(r.whys) < len(rules) {
		r.whys = append(r.whys, make([]whyRec, len(rules)-len(r.whys))...)
	}
	var texts = map[int32][]string{}
	var order []int32
	condFalse := map[int32]bool{}
	for _, w := range whys {
		if w.Kind == runtime.WhyCondition && !w.Result {
			condFalse[w.Rule] = true
		}
		var t string
		switch w.Kind {
		case runtime.WhyCondition:
			t = fmt.Sprintf("%s was %t", w.Name, w.Result)
			if w.Read != "" {
				t += " (" + w.Read + ")"
			}
		case runtime.WhyScore, runtime.WhyWeight:
			t = fmt.Sprintf("%s %s %g", rules[w.Child].Label, w.Kind, w.Value)
		case runtime.WhyOrder:
			labels := make([]string, len(w.Order))
			for k, c := range w.Order {
				labels[k] = rules[c].Label
			}
			t = "order " + strings.Join(labels, ", ")
		case runtime.WhyRefused:
			t = fmt.Sprintf("refused by its %s (%s)", w.Name, w.Read)
		}
		if _, seen := texts[w.Rule]; !seen {
			order = append(order, w.Rule)
		}
		texts[w.Rule] = append(texts[w.Rule], t)
	}
	for _, run := range runs {
		if int(run.Rule) >= len(rules) {
			continue
		}
		rule := &rules[run.Rule]
		if run.Status != runtime.Failure || rule.Kind != runtime.KindAction || condFalse[run.Rule] {
			continue
		}
		if _, seen := texts[run.Rule]; !seen {
			order = append(order, run.Rule)
		}
		texts[run.Rule] = append(texts[run.Rule], "the action "+rule.Action+" failed")
	}
	for _, rule := range order {
		r.whys[rule] = whyRec{step: step, text: strings.Join(texts[rule], "; ")}
	}
}

// whyViews lists the rules' last reasons, in rule order.
func (r *agentRec) whyViews(a *runtime.Agent) []whyView {
	out := []whyView{}
	rules := a.Tree().Tree.Rules
	for i, w := range r.whys {
		if w.step != 0 && i < len(rules) {
			out = append(out, whyView{Rule: int32(i), Label: rules[i].Label, Step: w.step, Text: designerNumbers(w.text)})
		}
	}
	return out
}

// longFraction is a number printed with more decimals than a designer
// reads ("cooling 6.599999999999909 s", "score 0.03333333333334091").
var longFraction = regexp.MustCompile(`\d+\.\d{4,}(e-?\d+)?`)

// designerNumbers rounds the long numbers of a reason as a designer reads
// them: two decimals from 1 up, three significant digits below. The
// records keep the exact text (a trace's reasons are exact); only the page
// shows it rounded, when it asks.
func designerNumbers(text string) string {
	if !longFraction.MatchString(text) {
		return text
	}
	return longFraction.ReplaceAllStringFunc(text, func(n string) string {
		v, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return n
		}
		if math.Abs(v) >= 1 {
			return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', 3, 64)
	})
}

// actionFailed reports whether an action of runs failed.
func actionFailed(a *runtime.Agent, runs []runtime.RuleRun) bool {
	rules := a.Tree().Tree.Rules
	for _, run := range runs {
		if run.Status == runtime.Failure && int(run.Rule) < len(rules) && rules[run.Rule].Kind == runtime.KindAction {
			return true
		}
	}
	return false
}
