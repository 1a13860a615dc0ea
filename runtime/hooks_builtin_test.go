package runtime

import (
	"strings"
	"testing"
)

// TestLogHook_writesTheRulesTextOnEnterAndExit: bt.log as an enter and an
// exit hook writes log.enter when the rule starts and log.exit, with {how},
// each time it is left, by any way (here success, failure and an abort).
func TestLogHook_writesTheRulesTextOnEnterAndExit(t *testing.T) {
	texts := `<parameter name="log.enter">in</parameter><parameter name="log.exit">out: {how}</parameter>`
	runStepCases(t, []stepCase{
		{name: "success and failure",
			xml:  bt(`<sequence id="root" enter="bt.log" exit="bt.log">` + texts + `<action id="a" name="ok" exit="bt.log"><parameter name="log.exit">a {how}, {how}</parameter></action><action id="b" name="fail"/></sequence>`),
			want: []string{"failure root: log(root: in) a log(a: a success, success) b log(root: out: failure)"}},
		{name: "abort",
			xml: bt(`<choice id="root">
  <sequence id="s" abort="self" enter="bt.log" exit="bt.log">` + texts + `<condition>c</condition><action id="a" name="act"/></sequence>
  <action id="b" name="ok"/>
</choice>`),
			conds: map[string]bool{"c": true}, script: map[string][]Status{"a": {R}},
			changes: map[int]map[string]bool{2: {"c": false}},
			want:    []string{"running a: ?c log(s: in) a:start a", "success root: ?c a:cancel log(s: out: abort) b [abort s]"}},
	})
}

// TestLogHook_needsItsText: bt.log hooked without its text is a bind error
// at the rule naming the parameter; its texts are parameters nothing else
// reads, declared for the lints and the editor.
func TestLogHook_needsItsText(t *testing.T) {
	for attr, param := range map[string]string{"enter": "log.enter", "exit": "log.exit"} {
		tree, err := LoadBytes("t.xml", []byte(bt(`<success id="a" `+attr+`="bt.log"/>`)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Bind(tree, NewRegistry(), BindOptions{})
		if err == nil || !strings.Contains(err.Error(), `t.xml:1:15: rule a: `+attr+` hook bt.log needs parameter "`+param+`"`) {
			t.Errorf("%s: got %v", attr, err)
		}
	}
	d, ok := NewRegistry().LookupHook("bt.log")
	if !ok || d.Origin.Kind != "builtin" || len(d.Params) != 2 {
		t.Errorf("bt.log: %+v", d)
	}
}
