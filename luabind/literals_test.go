package luabind

import (
	"fmt"
	"strings"
	"testing"
)

// TestLiterals_namesWrittenAsStrings: the signal, variable and timestamp
// names scripts pass as string literals, with their lines, whatever ctx is
// called; computed names are not listed.
func TestLiterals_namesWrittenAsStrings(t *testing.T) {
	f := newFixture(t, map[string]string{"a.lua": `local bt = require("bt")
bt.action("x", function(c, params)
  c:send("b-1", "OnIntrudr")
  c:setVar("Alret", true)
  if c:var("Alert") then c:signal("Go") end
  c:stamp("Seen"); c:clearStamp("Lost"); local s = c:since("Seen")
  local name = "Computed"
  c:signal(name)
  bt.broadcast("Everyone")
  return bt.SUCCESS
end)
local world = {}
function world.tick(game) game.signal("all", "Tick") end
return world`})
	var got []string
	for _, l := range f.e.Literals() {
		got = append(got, fmt.Sprintf("%s:%d %s %s %s", l.File, l.Line, l.Call, l.Kind, l.Name))
	}
	want := []string{
		"a.lua:3 c:send signal OnIntrudr", "a.lua:4 c:setVar variable Alret", "a.lua:5 c:var variable Alert",
		"a.lua:5 c:signal signal Go", "a.lua:6 c:stamp timestamp Seen", "a.lua:6 c:clearStamp timestamp Lost",
		"a.lua:6 c:since timestamp Seen", "a.lua:9 bt.broadcast signal Everyone", "a.lua:13 game.signal signal Tick",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	strs := f.e.StringConstants()
	if !strs["OnIntrudr"] || !strs["Computed"] || strs["nothere"] {
		t.Errorf("string constants: %v", strs)
	}
}

func TestIsEmptyCode(t *testing.T) {
	for code, want := range map[string]bool{"-- TODO": true, "  \n --[[ later ]]\n": true, "x = 1": false, "return": false, "(": false} {
		if got := IsEmptyCode(code); got != want {
			t.Errorf("IsEmptyCode(%q) = %v", code, got)
		}
	}
}
