package game

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

// typedGame: a schedule sets a number and a vector from its data; an
// action sets a string, then the same string again (no change line), and
// adds to the number.
var typedGame = map[string]string{
	"config.toml": `[run]
steps = 3
[[trees]]
name = "t"
file = "ai/t.xml"
[[agents]]
tree = "t"
count = 2
[[signals]]
at = 0.1
signal = "Hurt"
to = ["t-2"]
data = { hp = 40, at = { x = 1, y = 2.5, z = -3 } }
`,
	"ai/t.xml": `<behaviorTree>
  <variables>
    <variable name="Health" type="number" default="100"/>
    <variable name="Pos" type="vector"/>
    <variable name="Target" type="string"/>
  </variables>
  <signals>
    <signal name="Hurt" variable="Health" from="hp"/>
    <signal name="Hurt" variable="Pos" from="at"/>
  </signals>
  <sequence id="root">
    <action id=".aim" name="bt.variable.set"><parameter name="variable.name">Target</parameter><parameter name="variable.value">grunt-2</parameter></action>
    <action id=".again" name="bt.variable.set"><parameter name="variable.name">Target</parameter><parameter name="variable.value">grunt-2</parameter></action>
    <action id=".heal" name="bt.variable.set"><condition>Health &lt; 50</condition><parameter name="variable.name">Health</parameter><parameter name="variable.add">5.5</parameter></action>
    <running id=".hold"/>
  </sequence>
</behaviorTree>`,
}

func TestTrace_typedVariableChanges(t *testing.T) {
	got := runTrace(t, writeGame(t, typedGame), 1)
	want := `{"step":1,"time":0.1,"agent":"t-2","signal":"Hurt","from":"schedule","data":{"at":{"x":1,"y":2.5,"z":-3},"hp":40}}
{"step":1,"time":0.1,"agent":"t-2","var":"Health","value":40}
{"step":1,"time":0.1,"agent":"t-2","var":"Pos","value":{"x":1,"y":2.5,"z":-3}}
{"step":1,"time":0.1,"agent":"t-1","var":"Target","value":"grunt-2"}
{"step":1,"time":0.1,"agent":"t-1","runs":[["root.aim","success"],["root.again","success"],["root.heal","failure"]],"result":"failure","cursor":"root"}
{"step":1,"time":0.1,"agent":"t-2","var":"Target","value":"grunt-2"}
{"step":1,"time":0.1,"agent":"t-2","var":"Health","value":45.5}
{"step":1,"time":0.1,"agent":"t-2","runs":[["root.aim","success"],["root.again","success"],["root.heal","success"],["root.hold","running"]],"result":"running","cursor":"root.hold"}
`
	if got != want {
		t.Errorf("trace:\n%s\nwant:\n%s", got, want)
	}
}

func TestOpen_scheduledDataThatDoesNotFitIsAnErrorAtItsLine(t *testing.T) {
	files := withReplaced(typedGame, "config.toml", `hp = 40`, `hp = "40"`)
	cfg, err := LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), `config.toml:13: signals[0]: data does not fit: signal "Hurt" sets variable "Health" from "hp"`) ||
		!strings.Contains(err.Error(), "expected a number, got a string") {
		t.Errorf("got %v", err)
	}
}

func TestSend_dataThatDoesNotFitTheReceiverIsTheSendersError(t *testing.T) {
	files := withReplaced(typedGame, "ai/t.xml", `<running id=".hold"/>`,
		`<action id=".tell" name="bt.signal.send"><parameter name="signal.name">Hurt</parameter><parameter name="signal.to">all</parameter><parameter name="signal.data.hp">lots</parameter></action>
    <running id=".hold"/>`)
	files["ai/t.xml"] = strings.Replace(files["ai/t.xml"], `<condition>Health &lt; 50</condition>`, ``, 1)
	got := runTrace(t, writeGame(t, files), 1)
	if !strings.Contains(got, `"agent":"t-1","runs":[["root.aim","success"],["root.again","success"],["root.heal","success"]],"result":"error"`) ||
		!strings.Contains(got, `rule root.tell: action \"bt.signal.send\": game: agent t-2: signal \"Hurt\" sets variable \"Health\" from \"hp\" (ai/t.xml:8:5): runtime: bad variable value: expected a number, got a string`) {
		t.Errorf("trace:\n%s", got)
	}
	if strings.Contains(got, `"signal":"Hurt","from":"t-1"`) {
		t.Errorf("a refused signal was delivered:\n%s", got)
	}
}

func TestLints_aVariableAConditionReadsThatNothingSets(t *testing.T) {
	files := map[string]string{
		"config.toml": "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"t.xml": `<behaviorTree>
  <variables>
    <variable name="Ammo" type="number" default="3"/>
    <variable name="Clip" type="number"/>
    <variable name="Aware"/>
    <variable name="Told"/>
  </variables>
  <signals><signal name="Tell" variable="Told" value="true"/></signals>
  <sequence id="root">
    <success id=".a"><condition>Ammo &lt; Clip</condition><condition>Told</condition></success>
    <success id=".b"><condition>Aware</condition><condition>!Ammo</condition></success>
    <action id=".c" name="bt.variable.set"><parameter name="variable.name">Clip</parameter><parameter name="variable.value">1</parameter></action>
    <success id=".d"><condition>Ammo &gt;= 3</condition><condition>!Ammo &gt; 2</condition></success>
    <success id=".e"><conditionMode>anyTrue</conditionMode><condition>Ammo &gt; 5</condition><condition>Told</condition></success>
  </sequence>
</behaviorTree>`,
	}
	cfg, err := LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var got []string
	for _, l := range g.Lints() {
		if strings.Contains(l.Msg, "nothing in the game sets") || strings.Contains(l.Msg, "can never run") {
			got = append(got, l.Pos+": "+l.Msg)
		}
	}
	want := []string{
		`t.xml:10:22: rule root.a: condition "Ammo < Clip" reads variable "Ammo", which nothing in the game sets (no <signal> line, no bt.variable.set, no script names it): it always reads its default, 3`,
		`t.xml:11:22: rule root.b can never run: its condition "Aware" is always false, since nothing in the game sets Aware (default false)`,
		`t.xml:11:22: rule root.b: condition "Aware" reads variable "Aware", which nothing in the game sets (no <signal> line, no bt.variable.set, no script names it): it always reads its default, false`,
	}
	want = append(want, `t.xml:13:57: rule root.d can never run: its condition "!Ammo > 2" is always false, since nothing in the game sets Ammo (default 3)`)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSignal_fromGoWithDataThatDoesNotFitIsRefused: a sender that hears at
// once (Go's Signal, the world, the live view) gets the error, and nothing
// is delivered to anyone.
func TestSignal_fromGoWithDataThatDoesNotFitIsRefused(t *testing.T) {
	g, trace, _ := openTraced(t, typedGame)
	bad := runtime.Value{Kind: runtime.TableValue, Table: []runtime.Field{{Key: runtime.String("hp"), Val: runtime.Bool(true)}}}
	for _, to := range []string{"t-1", "all"} {
		err := g.Signal(to, "Hurt", bad)
		if err == nil || !strings.Contains(err.Error(), `signal "Hurt" sets variable "Health" from "hp" (ai/t.xml:8:5): runtime: bad variable value: expected a number, got a boolean`) {
			t.Errorf("to %s: %v", to, err)
		}
	}
	if strings.Contains(trace.String(), `"signal":"Hurt"`) {
		t.Errorf("a refused signal was delivered:\n%s", trace)
	}
	if v, _ := g.Agent("t-1").VarValue("Health"); !v.Equal(runtime.NumberVar(100)) {
		t.Errorf("Health = %v", v)
	}
}

// TestWorkers_typedVariablesTraceAlike: a game whose agents compare and
// set typed variables, and receive them from a schedule's data, writes the
// same trace on one worker and on three.
func TestWorkers_typedVariablesTraceAlike(t *testing.T) {
	files := withReplaced(typedGame, "config.toml", "count = 2", "count = 7")
	config := writeGame(t, files)
	run := func(n int) string {
		cfg, err := LoadConfig(config)
		if err != nil {
			t.Fatal(err)
		}
		var trace, people bytes.Buffer
		g, err := Open(cfg, Options{Trace: "-", Stdout: &trace, Stderr: &people, Workers: &n})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.OpenTrace(); err != nil {
			t.Fatal(err)
		}
		if err := g.Start(); err != nil {
			t.Fatal(err)
		}
		if err := g.Run(3); err != nil {
			t.Fatal(err)
		}
		if err := g.Close(); err != nil {
			t.Fatal(err)
		}
		return trace.String()
	}
	one, three := run(1), run(3)
	if one != three {
		t.Errorf("three workers:\n%s\none:\n%s", three, one)
	}
	if !strings.Contains(one, `"var":"Health","value":45.5`) {
		t.Errorf("the run does not show the typed changes:\n%s", one)
	}
}

// TestReload_scheduledDataThatNoLongerFitsIsRefused: a reload whose trees
// no longer take the data of a [[signals]] entry still to come is refused
// at that entry's line, and the game keeps its version; entries delivered
// already are not checked again.
func TestReload_scheduledDataThatNoLongerFitsIsRefused(t *testing.T) {
	config := writeGame(t, typedGame)
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	g, err := Open(cfg, Options{Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	stringHealth := strings.Replace(typedGame["ai/t.xml"], `<variable name="Health" type="number" default="100"/>`, `<variable name="Health" type="string"/>`, 1)
	stringHealth = strings.Replace(stringHealth, `<condition>Health &lt; 50</condition>`, ``, 1)
	stringHealth = strings.Replace(stringHealth, `<parameter name="variable.add">5.5</parameter>`, `<parameter name="variable.value">ok</parameter>`, 1)
	writeTreeFile(t, config, stringHealth)
	_, err = g.Reload(ReloadOptions{})
	if err == nil || !strings.Contains(err.Error(), `config.toml:13: signals[0]: data does not fit: signal "Hurt" sets variable "Health" from "hp"`) {
		t.Fatalf("reload before the signal: %v", err)
	}
	if got := g.Agent("t-2").Tree().Tree.Vars[0].Type; got != runtime.VarNumber {
		t.Errorf("after the refused reload Health is a %s", got)
	}
	// Once it was delivered, the entry no longer holds the reload back.
	writeTreeFile(t, config, typedGame["ai/t.xml"])
	if err := g.Run(1); err != nil {
		t.Fatal(err)
	}
	writeTreeFile(t, config, stringHealth)
	if _, err := g.Reload(ReloadOptions{}); err != nil {
		t.Errorf("reload after the signal: %v", err)
	}
}

// writeTreeFile writes the game's ai/t.xml beside its config.
func writeTreeFile(t *testing.T, config, src string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(filepath.Dir(config), "ai", "t.xml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLints_aRuleThatCanNeverRun: the children a list's flow never reaches
// are reported at the first one, with the sibling that decides the list;
// a child a script may jump into, and lists whose order or whose blocker
// leaves a way (a condition, a cooldown, a timeout), are not.
func TestLints_aRuleThatCanNeverRun(t *testing.T) {
	files := map[string]string{
		"config.toml": "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n[scripts]\npaths = [\"lua\"]\n",
		"lua/s.lua":   "bt.action('go', function(ctx) ctx:jump('root.j.back') return bt.SUCCESS end)\n",
		"t.xml": `<behaviorTree>
  <variables><variable name="Alert"/></variables>
  <signals><signal name="Seen" variable="Alert" value="true"/></signals>
  <choice id="root">
    <sequence id=".watch">
      <condition>Alert</condition>
      <action id=".calm" name="bt.variable.set"><parameter name="variable.name">Alert</parameter><parameter name="variable.value">false</parameter></action>
      <success id=".shout"/>
    </sequence>
    <sequence id=".s"><failure id=".no"/><success id=".never"/><success id=".never2"/></sequence>
    <choice id=".c"><success id=".yes"/><success id=".unreached"/></choice>
    <choice id=".d"><action id=".note" name="bt.log"><parameter name="log.message">x</parameter></action><success id=".after"/></choice>
    <choice id=".e"><action id=".fine" name="bt.wait" doNotFail="true"><condition>Alert</condition><parameter name="wait.seconds">1</parameter></action><success id=".late"/></choice>
    <sequence id=".f"><running id=".hold"/><success id=".tail"/></sequence>
    <choice id=".ok1" order="random"><success id=".r1"/><success id=".r2"/></choice>
    <choice id=".ok2"><success id=".cond"><condition>Alert</condition></success><running id=".wait" timeout="2"/><success id=".ok3"/></choice>
    <sequence id=".j"><failure id=".stop"/><success id=".back"/></sequence>
    <action id=".go" name="go"/>
  </choice>
</behaviorTree>`,
	}
	cfg, err := LoadConfig(writeGame(t, files))
	if err != nil {
		t.Fatal(err)
	}
	g, err := Open(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	var got []string
	for _, l := range g.Lints() {
		if strings.Contains(l.Msg, "can never run") {
			got = append(got, l.Pos+": "+l.Msg)
		}
	}
	want := []string{
		`t.xml:8:7: rule root.watch.shout can never run: it comes after root.watch.calm in sequence root.watch, and root.watch.calm sets Alert to false, so the sequence's condition "Alert" is false when it checks its conditions again after that child; only a jump can reach it`,
		`t.xml:10:42: rule root.s.never can never run (nor can the rule after it): it comes after root.s.no in sequence root.s, and root.s.no is a <failure>: it always fails, which ends the sequence; only a jump can reach it`,
		`t.xml:11:41: rule root.c.unreached can never run: it comes after root.c.yes in choice root.c, and root.c.yes is a <success> with no conditions: it always succeeds, which ends the choice; only a jump can reach it`,
		`t.xml:12:106: rule root.d.after can never run: it comes after root.d.note in choice root.d, and root.d.note calls bt.log with no conditions: it always succeeds, which ends the choice; only a jump can reach it`,
		`t.xml:13:153: rule root.e.late can never run: it comes after root.e.fine in choice root.e, and root.e.fine has doNotFail="true": it never fails, so the choice ends with its success; only a jump can reach it`,
		`t.xml:14:44: rule root.f.tail can never run: it comes after root.f.hold in sequence root.f, and root.f.hold is a <running> with no conditions and no timeout: it never ends; only a jump can reach it`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lints:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
