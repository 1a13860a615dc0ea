package game

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDebugSaves_listAndLoadByNameOnly: the page's Open save lists the
// files beside the config that are saves, and loads one by its name only.
func TestDebugSaves_listAndLoadByNameOnly(t *testing.T) {
	g, dir := openTreeGame(t, map[string]string{
		"config.toml": treeGameConfig,
		"mod/t.xml":   "<behaviorTree><running id=\"r\"/></behaviorTree>\n",
		"notes.sav":   "not a save",
	})
	if err := g.Start(); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(3); err != nil {
		t.Fatal(err)
	}
	if err := g.Save(filepath.Join(dir, "at3.sav")); err != nil {
		t.Fatal(err)
	}
	if err := g.Run(2); err != nil {
		t.Fatal(err)
	}
	list, err := g.host().Saves()
	if err != nil || !reflect.DeepEqual(list, []string{"at3.sav"}) {
		t.Errorf("saves %v %v", list, err)
	}
	if _, err := g.host().LoadSave("at3.sav"); err != nil || g.Step() != 3 {
		t.Errorf("load: step %d, %v", g.Step(), err)
	}
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	for _, name := range []string{"../at3.sav", "sub/at3.sav", filepath.Join(dir, "at3.sav"), ".."} {
		if _, err := g.host().LoadSave(name); !errors.Is(err, ErrLoad) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
