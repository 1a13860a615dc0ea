package game

import (
	"strings"

	"github.com/btrun/btrun/luabind"
	"github.com/btrun/btrun/runtime"
)

// inlineCodeParams are the parameters holding a rule's inline Lua (bt.lua
// as its action, condition, enter or exit hook), which sees the rule's
// params.
var inlineCodeParams = [...]string{luabind.ParamRun, luabind.ParamTest, luabind.ParamEnter, luabind.ParamExit}

// inlineNames reports whether the rule's inline Lua names parameter name,
// so that it reads it: params.name, or the name quoted (params["name"],
// params:number('name')). The lint of unread parameters takes those as
// read; a parameter the code does not name is still reported.
func inlineNames(r *runtime.Rule, name string) bool {
	for _, p := range inlineCodeParams {
		code, ok := r.Params.Get(p)
		if !ok {
			continue
		}
		if strings.Contains(code, `"`+name+`"`) || strings.Contains(code, `'`+name+`'`) || namesField(code, "params."+name) {
			return true
		}
	}
	return false
}

// namesField reports whether code holds ref not followed by a character
// of a longer name (params.mood, not params.moody).
func namesField(code, ref string) bool {
	for i := strings.Index(code, ref); i >= 0; {
		end := i + len(ref)
		if end == len(code) || !isNameByte(code[end]) {
			return true
		}
		next := strings.Index(code[end:], ref)
		if next < 0 {
			return false
		}
		i = end + next
	}
	return false
}

func isNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
