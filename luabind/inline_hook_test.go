package luabind

import (
	"strings"
	"testing"
)

// TestInlineHook_entersAndExitsWithHow: enter="bt.lua" runs lua.enter and
// exit="bt.lua" lua.exit, each seeing ctx, params and how.
func TestInlineHook_entersAndExitsWithHow(t *testing.T) {
	f := newFixture(t, nil)
	f.bind(tree(`<sequence id='root' enter='bt.lua' exit='bt.lua'>
		<parameter name='lua.enter'>ctx.agent.log = (ctx.agent.log or '') .. '+' .. how .. params:number('n')</parameter>
		<parameter name='lua.exit'>ctx.agent.log = ctx.agent.log .. ' -' .. how</parameter>
		<parameter name='n'>3</parameter>
		<action id='.go' name='bt.lua'><parameter name='lua.run'>return ctx.step &gt; 1 and bt.FAILURE or bt.SUCCESS</parameter></action>
	</sequence>`))
	a := f.agent("a1")
	st, _ := f.e.Data(a)
	if got := step(t, a) + " " + step(t, a); got != "success failure" {
		t.Errorf("results %s", got)
	}
	if log, _ := st.GetField("log"); log != "+enter3 -success+enter3 -failure" {
		t.Errorf("log = %v", log)
	}
}

// TestInlineHook_needsItsCode: the code of each attribute naming bt.lua is
// required, and compiled at bind: errors at the rule.
func TestInlineHook_needsItsCode(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.bindErr(tree(`<sequence id='root'>
<success id='.a' exit='bt.lua'><parameter name='lua.enter'>x = 1</parameter></success>
<success id='.b' enter='bt.lua'><parameter name='lua.enter'>x = = 1</parameter></success>
</sequence>`))
	for _, want := range []string{`rule root.a: bt.lua needs parameter "lua.exit"`, `rule root.b: bt.lua: `} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("want %q in %v", want, err)
		}
	}
}
