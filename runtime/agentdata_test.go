package runtime

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// counter is a game's own agent data: one number, saved as its text.
type counter struct{ n float64 }

func (c *counter) Field(name string) Value {
	if name == "n" {
		return Number(c.n)
	}
	return Value{}
}

func (c *counter) SetField(name string, v Value) error {
	c.n = v.Num
	return nil
}

func (c *counter) MarshalBinary() ([]byte, error) {
	return []byte(strconv.FormatFloat(c.n, 'g', -1, 64)), nil
}
func (c *counter) UnmarshalBinary(b []byte) error {
	n, err := strconv.ParseFloat(string(b), 64)
	c.n = n
	return err
}

type holder struct{ d AgentData }

func (h holder) GameData() AgentData { return h.d }

func TestAgentData_savedByDataHostThroughTheGamesBytes(t *testing.T) {
	reg := NewRegistry()
	must(t, reg.RegisterAction("count", ActionFunc(func(a *Agent, _ Params) (Status, error) {
		d := a.Data()
		return Running, d.SetField("n", Number(d.Field("n").Num+1))
	})))
	b, err := bindTyped(t, `<behaviorTree><action id="count" name="count"/></behaviorTree>`, reg)
	if err != nil {
		t.Fatal(err)
	}
	a, plain := b.NewAgent("a", nil), b.NewAgent("p", nil)
	a.SetUserData(&counter{n: 40})
	a.Step(0.1)
	a.Step(0.1)
	data, err := SaveAgents([]*Agent{a, plain}, DataHost{})
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{}
	a2, p2 := b.NewAgent("a", nil), b.NewAgent("p", nil)
	a2.SetUserData(holder{c}) // held by a host's value, as luabind holds it
	if _, err := RestoreAgents(data, []*Agent{a2, p2}, DataHost{}); err != nil {
		t.Fatal(err)
	}
	if c.n != 42 {
		t.Errorf("restored n = %v, want 42", c.n)
	}
	// The save's data must meet an agent with data, and the other way round.
	if _, err := RestoreAgents(data, []*Agent{b.NewAgent("a", nil), p2}, DataHost{}); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "it has none") {
		t.Errorf("game data into an agent without: %v", err)
	}
	other := b.NewAgent("p", nil)
	other.SetUserData(&counter{})
	if _, err := RestoreAgents(data, []*Agent{a2, other}, DataHost{}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("no game data into an agent with some: %v", err)
	}
}

// rawData is agent data whose bytes are binary, not text.
type rawData struct{ counter }

func (rawData) MarshalBinary() ([]byte, error) { return []byte{0xff, 0xfe, 1}, nil }

// TestAgentData_bytesThatAreNotTextAreRefusedAtSave: a save holds game
// data as a string, which a load requires to be UTF-8: bytes that are not
// are an error of the save (they used to save, and the load failed).
func TestAgentData_bytesThatAreNotTextAreRefusedAtSave(t *testing.T) {
	reg := NewRegistry()
	must(t, reg.RegisterAction("idle", ActionFunc(func(*Agent, Params) (Status, error) { return Running, nil })))
	b, err := bindTyped(t, `<behaviorTree><action id="idle" name="idle"/></behaviorTree>`, reg)
	must(t, err)
	a := b.NewAgent("a", nil)
	a.SetUserData(&rawData{})
	_, err = SaveAgents([]*Agent{a}, DataHost{})
	if err == nil || !strings.Contains(err.Error(), "agent a: saving its game data: *runtime.rawData.MarshalBinary returned bytes that are not valid UTF-8") {
		t.Errorf("got %v", err)
	}
}
