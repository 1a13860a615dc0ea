package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type tallyParams struct {
	Limit int `param:"tally.limit" default:"3"`
}

type tallyState struct{ Hits int }

// newTallyHarness binds xml with the harness's actions and "tally", a
// typed action that runs until the Hurt signals' damage (data.dmg) reaches
// its limit, counting hits in its typed state; every call is logged with
// the state it saw.
func newTallyHarness(t *testing.T, xml string, opts BindOptions) *harness {
	t.Helper()
	h := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	h.must(TypedAction[tallyParams, tallyState]{Name: "tally",
		Check: func(p *tallyParams) error {
			if p.Limit < 1 || p.Limit > 5 {
				return fmt.Errorf("tally.limit %d is not between 1 and 5", p.Limit)
			}
			return nil
		},
		Run: func(a *Agent, p *tallyParams, s *tallyState) (Status, error) {
			h.log = append(h.log, fmt.Sprintf("%s(hits=%d)", a.Label(), s.Hits))
			return Running, nil
		},
		Cancel: func(a *Agent, p *tallyParams, s *tallyState) error {
			h.log = append(h.log, fmt.Sprintf("%s:cancel(hits=%d)", a.Label(), s.Hits))
			return nil
		},
		On: map[string]func(a *Agent, p *tallyParams, s *tallyState, data Value) (Status, error){
			"Hurt": func(a *Agent, p *tallyParams, s *tallyState, data Value) (Status, error) {
				s.Hits += data.Get("dmg").Int()
				h.log = append(h.log, fmt.Sprintf("%s.onHurt(hits=%d)", a.Label(), s.Hits))
				if s.Hits >= p.Limit {
					return Success, nil
				}
				return Running, nil
			},
			"Boom": func(a *Agent, p *tallyParams, s *tallyState, data Value) (Status, error) {
				return 0, errors.New("blown up")
			},
		}}.Register(h.reg))
	tree, err := LoadBytes("test.xml", []byte(xml), LoadOptions{})
	h.must(err)
	h.tree, err = Bind(tree, h.reg, opts)
	h.must(err)
	h.agent = h.tree.NewAgent("a1", h.env)
	return h
}

func (h *harness) hurt(dmg int) string {
	h.t.Helper()
	h.log = h.log[:0]
	h.must(h.agent.SignalData("Hurt", Table("dmg", dmg)))
	return strings.Join(h.log, " ")
}

// TestTypedHandler_keepsItsStateAndFinishesTheAction: a typed handler sees
// and changes the rule's typed state (Run sees the change), and its
// Success is the action's result at the next step.
func TestTypedHandler_keepsItsStateAndFinishesTheAction(t *testing.T) {
	h := newTallyHarness(t, bt(`<sequence id="root"><action id="watch" name="tally"/><action id="after" name="ok"/></sequence>`), BindOptions{})
	if got := h.tree.Handles(1); strings.Join(got, ",") != "Boom,Hurt" {
		t.Fatalf("handles %v", got)
	}
	expectSteps(t, h.steps(1), []string{"running watch: watch(hits=0)"})
	if got := h.hurt(1); got != "watch.onHurt(hits=1)" {
		t.Errorf("first hurt: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"running watch: watch(hits=1)"})
	if got := h.hurt(2); got != "watch.onHurt(hits=3)" {
		t.Errorf("second hurt: %s", got)
	}
	expectSteps(t, h.steps(2), []string{"success root: after", "running watch: watch(hits=0)"})
	h.log = h.log[:0]
	err := h.agent.Signal("Boom")
	if err == nil || !strings.Contains(err.Error(), `handler for signal "Boom" of action "tally": blown up`) || !strings.Contains(err.Error(), "test.xml:1") {
		t.Errorf("a handler's error: %v", err)
	}
}

// TestTypedHandler_inLanesEachRuleHasItsState: two tallies in parallel
// lanes count apart, each against its own limit.
func TestTypedHandler_inLanesEachRuleHasItsState(t *testing.T) {
	h := newTallyHarness(t, bt(`<sequence id="root"><parallel id="both" success="all">
  <action id="one" name="tally"><parameter name="tally.limit">1</parameter></action>
  <action id="two" name="tally"><parameter name="tally.limit">2</parameter></action>
</parallel></sequence>`), BindOptions{})
	expectSteps(t, h.steps(1), []string{"running both{one two}: one(hits=0) two(hits=0)"})
	if got := h.hurt(1); got != "one.onHurt(hits=1) two.onHurt(hits=1)" {
		t.Errorf("hurt: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"running both{one=success two}: two(hits=1)"})
	if got := h.hurt(1); got != "two.onHurt(hits=2)" {
		t.Errorf("hurt again: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"success root: "})
}

// TestTypedHandler_inASlotsTree: a grafted tree's typed action handles
// signals with its state.
func TestTypedHandler_inASlotsTree(t *testing.T) {
	trees := slotTrees(t, map[string]string{"guarded": bt(`<action id="watch" name="tally"><parameter name="tally.limit">2</parameter></action>`)})
	h := newTallyHarness(t, bt(`<choice id="root"><sequence id="work"><action id="walk" name="ok"/><slot id="use"/></sequence></choice>`),
		BindOptions{Trees: trees})
	h.must(h.agent.Graft("use", "guarded"))
	expectSteps(t, h.steps(1), []string{"running use.watch: walk use.watch(hits=0)"})
	if got := h.hurt(1) + " " + h.hurt(1); got != "use.watch.onHurt(hits=1) use.watch.onHurt(hits=2)" {
		t.Errorf("hurts: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"success root: "})
}

// TestTypedHandler_underAbortAndAcrossRestore: an aborted tally's Cancel
// sees the hits its handler counted, and its next run starts afresh; a
// snapshot taken between hits carries them to a restored agent.
func TestTypedHandler_underAbortAndAcrossRestore(t *testing.T) {
	h := newTallyHarness(t, bt(`<sequence id="root"><action id="watch" name="tally"/><action id="after" name="ok"/></sequence>`), BindOptions{})
	h.steps(1)
	h.hurt(2)
	h.log = h.log[:0]
	h.must(h.agent.Reset())
	if got := strings.Join(h.log, " "); got != "watch:cancel(hits=2)" {
		t.Errorf("reset: %s", got)
	}
	if got := h.hurt(1); got != "" {
		t.Errorf("a handler called for an action no longer running: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"running watch: watch(hits=0)"})
	h.hurt(2)
	s, err := h.agent.Snapshot()
	h.must(err)
	fresh := h.tree.NewAgent("a1", h.env)
	if _, err := fresh.Restore(&s); err != nil {
		t.Fatal(err)
	}
	h.agent = fresh
	if got := h.hurt(1); got != "watch.onHurt(hits=3)" {
		t.Errorf("after restore: %s", got)
	}
	expectSteps(t, h.steps(1), []string{"success root: after"})
}

// TestTypedCheck_refusesParametersAtBindWithThePosition: Check's error is
// a bind error at the rule, for actions and conditions alike.
func TestTypedCheck_refusesParametersAtBindWithThePosition(t *testing.T) {
	h := newHarness(t, bt(`<action id="x" name="ok"/>`), nil)
	h.must(TypedAction[tallyParams, struct{}]{Name: "tally",
		Run: func(*Agent, *tallyParams, *struct{}) (Status, error) { return Success, nil },
		Check: func(p *tallyParams) error {
			if p.Limit > 5 {
				return fmt.Errorf("tally.limit %d is above 5", p.Limit)
			}
			return nil
		}}.Register(h.reg))
	h.must(TypedCondition[tallyParams]{Name: "few",
		Test: func(*Agent, *tallyParams) (bool, error) { return true, nil },
		Check: func(p *tallyParams) error {
			if p.Limit < 1 {
				return errors.New("tally.limit below 1")
			}
			return nil
		}}.Register(h.reg))
	tree, err := LoadBytes("test.xml", []byte(`<behaviorTree><sequence id="root">
  <action id="a" name="tally"><parameter name="tally.limit">4</parameter></action>
  <action id="b" name="tally"><parameter name="tally.limit">9</parameter></action>
  <action id="c" name="ok"><condition>few</condition><parameter name="tally.limit">0</parameter></action>
</sequence></behaviorTree>`), LoadOptions{})
	h.must(err)
	_, err = Bind(tree, h.reg, BindOptions{})
	if !errors.Is(err, ErrUnbound) {
		t.Fatalf("got %v, want a bind error", err)
	}
	for _, want := range []string{`test.xml:3:3: rule b: action "tally": parameters refused: tally.limit 9 is above 5`,
		`condition "few": parameters refused: tally.limit below 1`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got\n%v\nwant it to contain\n%s", err, want)
		}
	}
	if strings.Contains(err.Error(), "rule a") {
		t.Errorf("a rule whose parameters pass is reported: %v", err)
	}
}
