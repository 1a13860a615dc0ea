package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// TestUpdate_declaredPluginTakesNewDeclarations: a plugin that runs
// elsewhere (its path holds its declarations: a cluster's shard) is
// "rebuilt" by Prepare from the declarations now at its path, starting no
// process: the registry gets what they declare, and Commit makes them the
// plugin's. Declarations that do not read fail Prepare, and the old ones
// stay.
func TestUpdate_declaredPluginTakesNewDeclarations(t *testing.T) {
	dir := t.TempDir()
	write := func(b []byte) {
		if err := os.WriteFile(filepath.Join(dir, "d"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	declare := func(actions ...string) {
		d := &sdk.Description{Plugin: "d"}
		for _, a := range actions {
			d.Actions = append(d.Actions, sdk.ActionInfo{Name: a})
		}
		b, err := Declarations(d)
		if err != nil {
			t.Fatal(err)
		}
		write(b)
	}
	declare("d.act")
	set, err := Start(context.Background(), []Spec{{Name: "d", Path: "d", Dir: dir}}, Options{Logger: func(string, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()

	write([]byte(declarationsMagic + "{"))
	if _, err := set.Prepare(context.Background(), []string{"d"}); !errors.Is(err, ErrStart) {
		t.Errorf("bad declarations: %v", err)
	}
	if n := len(set.Plugins()[0].Description.Actions); n != 1 {
		t.Errorf("after a failed Prepare the plugin declares %d actions, not 1", n)
	}

	declare("d.act", "d.more")
	u, err := set.Prepare(context.Background(), []string{"d"})
	if err != nil {
		t.Fatal(err)
	}
	reg := runtime.NewRegistry()
	if err := u.Register(reg); err != nil {
		t.Fatal(err)
	}
	if _, ok := reg.LookupAction("d.more"); !ok {
		t.Error("the new declarations' action is not registered")
	}
	u.Commit()
	info := set.Plugins()[0]
	if info.Pid != 0 || info.Executable != "" || len(info.Description.Actions) != 2 || !set.plugins[0].relayed {
		t.Errorf("after Commit: %+v, relayed %v", info, set.plugins[0].relayed)
	}
	if got := u.Restarted(); len(got) != 1 || got[0] != "d" {
		t.Errorf("Restarted %q", got)
	}
}
