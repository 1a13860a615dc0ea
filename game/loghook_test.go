package game

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestLogHook_writesTheAgentsLog: the built-in bt.log hook's lines are the
// agent's log lines of the output (as the bt.log action's), at the time the
// rule starts and is left.
func TestLogHook_writesTheAgentsLog(t *testing.T) {
	cfg, err := LoadConfig(writeGame(t, map[string]string{
		"config.toml": "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n",
		"t.xml": `<behaviorTree>
  <sequence id="root" enter="bt.log" exit="bt.log">
    <parameter name="log.enter">walks</parameter><parameter name="log.exit">stops walking ({how})</parameter>
    <action id="w" name="bt.wait"><parameter name="wait.seconds">0.15</parameter></action>
  </sequence>
</behaviorTree>`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var people bytes.Buffer
	g, err := Open(cfg, Options{Stdout: &people, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(3); err != nil {
		t.Fatal(err)
	}
	g.Close()
	var logs []string
	for _, l := range strings.Split(people.String(), "\n") {
		if strings.Contains(l, "log root") {
			logs = append(logs, l)
		}
	}
	want := "t=0.10 t-1 log root: walks\nt=0.30 t-1 log root: stops walking (success)"
	if strings.Join(logs, "\n") != want {
		t.Errorf("output:\n%s\nwant lines:\n%s", people.String(), want)
	}
}
