package luabind

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Where scripts are: folders on disk, or in Options.FS (a game that
// embeds btrun may keep its scripts in its binary or in memory).

// stat is os.Stat, or fs.Stat on FS.
func (o *Options) stat(p string) (fs.FileInfo, error) {
	if o.FS != nil {
		return fs.Stat(o.FS, p)
	}
	return os.Stat(p)
}

// scriptFiles lists the .lua files under dir (but *.d.lua, editor
// annotations), in path order.
func (e *Engine) scriptFiles(dir string) ([]string, error) {
	var files []string
	keep := func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".lua") && !strings.HasSuffix(p, ".d.lua") {
			files = append(files, p)
		}
		return nil
	}
	if e.opts.FS != nil {
		return files, fs.WalkDir(e.opts.FS, dir, keep)
	}
	return files, filepath.WalkDir(dir, keep)
}

// moduleName is the module name of script file p of folder dir: its path
// inside the folder, without .lua, with dots for slashes.
func moduleName(dir, p string) string {
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		rel = p
	}
	rel = path.Clean(filepath.ToSlash(rel))
	return strings.ReplaceAll(strings.TrimSuffix(rel, ".lua"), "/", ".")
}
