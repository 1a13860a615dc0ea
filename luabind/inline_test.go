package luabind

import (
	"errors"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime"
)

func TestInline_actionAndCondition(t *testing.T) {
	f := newFixture(t, nil)
	f.bind(tree(`<sequence id='root'>
		<action id='.heal' name='bt.lua'>
			<parameter name='lua.run'>ctx.agent.hp = (ctx.agent.hp or 10) + params:number("heal.amount")</parameter>
			<parameter name='heal.amount'>5</parameter>
		</action>
		<sequence id='.hurt'>
			<parameter name='lua.test'>ctx.agent.hp &lt; 30</parameter>
			<condition>bt.lua</condition>
			<action id='.status' name='bt.lua'>
				<parameter name='lua.run'>if ctx.agent.hp &gt;= 25 then return bt.FAILURE end return bt.SUCCESS</parameter>
			</action>
		</sequence>
	</sequence>`))
	a := f.agent("a1")
	st, _ := f.e.Data(a)
	var got []string
	for range 4 {
		got = append(got, step(t, a))
	}
	// hp: 15 (ok), 20 (ok), 25 (status fails), 30 (gate closed).
	if strings.Join(got, " ") != "success success failure failure" {
		t.Errorf("got %v", got)
	}
	if hp, _ := st.GetField("hp"); hp != 30.0 {
		t.Errorf("hp = %v", hp)
	}
}

func TestInline_negatedCondition(t *testing.T) {
	f := newFixture(t, nil)
	f.bind(tree(`<action id='x' name='bt.lua'>
		<parameter name='lua.run'>ctx.memory.ran = true</parameter>
		<parameter name='lua.test'>ctx.step &gt; 1</parameter>
		<condition>!bt.lua</condition>
	</action>`))
	a := f.agent("a1")
	if got := step(t, a) + " " + step(t, a); got != "success failure" {
		t.Errorf("got %s", got)
	}
}

func TestInline_syntaxErrorsAreBindErrorsWithPositions(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.bindErr(tree(`<sequence id='root'>
<action id='.a' name='bt.lua'><parameter name='lua.run'>ctx.agent.x = = 1</parameter></action>
<action id='.b' name='bt.lua'><parameter name='lua.test'>ctx.agent.x &lt;</parameter><condition>bt.lua</condition><parameter name='lua.run'>x()</parameter></action>
<action id='.c' name='bt.lua'/>
<action id='.d' name='bt.lua'><parameter name='lua.run'>x()</parameter><parameter name='lua.test'>x = 1</parameter><condition>bt.lua</condition></action>
</sequence>`))
	var list runtime.ErrorList
	if !errors.As(err, &list) || len(list) != 4 {
		t.Fatalf("got %v, want 4 errors", err)
	}
	for i, want := range []string{
		"test.xml:4:1: rule root.a: bt.lua: lua.run:1:15: syntax error near '='",
		"test.xml:5:86: rule root.b: bt.lua: lua.test:1: syntax error near ')' (at the end of the code)",
		`test.xml:6:1: rule root.c: bt.lua needs parameter "lua.run": Lua statements to run`,
		"test.xml:7:116: rule root.d: bt.lua: lua.test:1:3: syntax error near '='",
	} {
		if !strings.HasPrefix(list[i].Error(), want) {
			t.Errorf("error %d:\n got  %s\n want %s...", i, list[i], want)
		}
	}
}

func TestInline_runtimeErrorsAndResults(t *testing.T) {
	f := newFixture(t, nil)
	f.bind(tree(`<choice id='root'>
		<action id='.a' name='bt.lua'><parameter name='lua.run'>return 42</parameter></action>
	</choice>`))
	got := step(t, f.agent("a1"))
	wantContains(t, got, `rule root.a: action "bt.lua": lua.run: bt.lua code lua.run returned number "42"; it returns nothing (success), bt.SUCCESS, bt.FAILURE or bt.RUNNING`)

	f = newFixture(t, nil)
	f.bind(tree(`<action id='a' name='bt.lua'>
		<parameter name='lua.run'>x = 1</parameter>
		<parameter name='lua.test'>ctx.agent.hp &lt; 3</parameter><condition>bt.lua</condition>
	</action>`))
	got = step(t, f.agent("a1"))
	wantContains(t, got, `rule a: condition "bt.lua": lua.test:1: attempt to compare nil with number`)
}

func TestInline_compiledOncePerDistinctCode(t *testing.T) {
	f := newFixture(t, nil)
	f.bind(tree(`<sequence id='root'>
		<action id='.a' name='bt.lua'><parameter name='lua.run'>n = (n or 0) + 1</parameter></action>
		<action id='.b' name='bt.lua'><parameter name='lua.run'>n = (n or 0) + 1</parameter></action>
	</sequence>`))
	if len(f.e.inline) != 1 {
		t.Errorf("%d protos for one code", len(f.e.inline))
	}
	step(t, f.agent("a1"))
	expectGlobals(t, f, map[string]any{"n": 2.0})
}
