package game

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/plugins/host"
)

// The plugins of a conductor that goes back over a reload (docs/cluster.md,
// "Reloads"). A checkpoint's files are what the shards open the game from
// (ClusterFiles): at the path of a plugin that runs on the conductor stand
// its declarations, not its program (the shards start no process for it),
// and a conductor opened from them would take the plugin for one that runs
// elsewhere and have nobody to run its calls. So a checkpoint also names
// the program the conductor ran for each plugin (PluginPrograms: where it
// was and its content's hash), and the copy of the checkpoint's files gets
// that program at the plugin's path (WriteCheckpointFiles), found again on
// this machine: the build the run's folder had (a Go package is built once
// into the build cache, keyed by its sources' hash: the program of the
// checkpoint is still there) or, once that is gone, the build of the run's
// folder now if it is the same program. A build never goes into the run's
// object store: it is rebuilt from the sources on disk, by hash, or found
// in the cache.

// PluginProgram is the program a conductor runs for one of its plugins.
type PluginProgram struct {
	Name string // the plugin's name in the config
	Path string // its path among the game's files (ClusterFiles), slash-separated
	Exe  string // the program that ran: an absolute path (a build in the cache, or the config's executable)
	Hash string // the program's content's hash (cluster.HashOf)
}

// PluginPrograms are the programs g runs for its plugins, named by the
// paths of its files (ClusterFiles, whose config path is config): what a
// checkpoint records beside its files.
func (g *Game) PluginPrograms(config string) ([]PluginProgram, error) {
	if g.plugins == nil {
		return nil, nil
	}
	root, err := filesRoot(g.cfg, config)
	if err != nil {
		return nil, err
	}
	var out []PluginProgram
	for i, info := range g.plugins.Plugins() {
		if info.Executable == "" {
			return nil, fmt.Errorf("game: plugin %s runs elsewhere: this game runs no program for it", info.Name)
		}
		p, err := filepath.Abs(g.cfg.Abs(g.cfg.Plugins[i].Path))
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil || !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("game: plugin %s stands outside the game's files (%s)", info.Name, p)
		}
		// Where it is, not where it stood: a conductor opened from a
		// copy of a checkpoint's files runs it through a link there.
		exe, err := filepath.EvalSymlinks(info.Executable)
		if err == nil {
			exe, err = filepath.Abs(exe)
		}
		if err != nil {
			return nil, fmt.Errorf("game: plugin %s's program: %w", info.Name, err)
		}
		h, err := hashFile(exe)
		if err != nil {
			return nil, fmt.Errorf("game: plugin %s's program: %w", info.Name, err)
		}
		out = append(out, PluginProgram{Name: info.Name, Path: filepath.ToSlash(rel), Exe: exe, Hash: h})
	}
	return out, nil
}

// PluginPrograms are the programs the conductor's plugins run now, named
// by the paths of its files (Game.PluginPrograms).
func (c *Conductor) PluginPrograms(config string) ([]PluginProgram, error) {
	return c.g.PluginPrograms(config)
}

// filesRoot is the folder the paths of cfg's files are relative to, its
// config's among them being config.
func filesRoot(cfg *Config, config string) (string, error) {
	abs, err := filepath.Abs(cfg.Path)
	if err != nil {
		return "", err
	}
	slash := filepath.ToSlash(abs)
	if !filepath.IsLocal(filepath.FromSlash(config)) || !strings.HasSuffix(slash, "/"+config) {
		return "", fmt.Errorf("game: the game's files name config %s, and its config is %s", config, abs)
	}
	return filepath.FromSlash(strings.TrimSuffix(slash, config)), nil
}

// hashFile is the content's hash of the file at p, read in pieces.
func hashFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New() // cluster.HashOf's, without the whole program in memory
	if _, err := io.Copy(h, io.LimitReader(f, maxClusterFiles)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// EncodePrograms is programs as text, a line "program\tHASH\tNAME\tPATH\tEXE"
// each; a field holding a tab or a newline is refused.
func EncodePrograms(programs []PluginProgram) ([]byte, error) {
	var b strings.Builder
	for _, p := range programs {
		fields := []string{"program", p.Hash, p.Name, p.Path, p.Exe}
		for _, f := range fields {
			if f == "" || strings.ContainsAny(f, "\t\n") {
				return nil, fmt.Errorf("game: a plugin's program cannot be recorded as %q", f)
			}
		}
		b.WriteString(strings.Join(fields, "\t") + "\n")
	}
	return []byte(b.String()), nil
}

// maxPrograms bounds the programs read back: far above any game's plugins.
const maxPrograms = 1 << 12

// DecodePrograms reads what EncodePrograms wrote.
func DecodePrograms(b []byte) ([]PluginProgram, error) {
	if len(b) == 0 {
		return nil, nil
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) > maxPrograms {
		return nil, fmt.Errorf("game: a checkpoint's plugin programs: %d lines", len(lines))
	}
	out := make([]PluginProgram, 0, len(lines))
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 5 || f[0] != "program" || len(f[1]) != 64 || f[2] == "" || !filepath.IsLocal(filepath.FromSlash(f[3])) || !filepath.IsAbs(f[4]) {
			return nil, fmt.Errorf("game: a checkpoint's plugin programs, line %d: %q", i+1, l)
		}
		out = append(out, PluginProgram{Hash: f[1], Name: f[2], Path: f[3], Exe: f[4]})
	}
	return out, nil
}

// WriteCheckpointFiles is WriteStoredFiles for a conductor: the files man
// names, but at each plugin's path the program the conductor ran then
// (programs), found on this machine (findProgram) rather than what the
// shards got there (its declarations, or a build the store need not
// hold). home is the run's own config, whose plugins are built again from
// their sources when their program of the checkpoint is gone.
func WriteCheckpointFiles(files cluster.FileStore, man *cluster.ReloadManifest, programs []PluginProgram, home *Config, dir string) (string, error) {
	skip := make(map[string]bool, len(programs))
	for _, p := range programs {
		skip[p.Path] = true
	}
	config, err := writeStored(files, man, dir, skip)
	if err != nil {
		return "", err
	}
	for _, p := range programs {
		exe, err := findProgram(p, home)
		if err != nil {
			return "", err
		}
		if err := placeProgram(exe, filepath.Join(dir, filepath.FromSlash(p.Path))); err != nil {
			return "", fmt.Errorf("game: plugin %s's program: %w", p.Name, err)
		}
	}
	return config, nil
}

// errProgramGone is a checkpoint's plugin program that this machine no
// longer has, nor can build from the run's folder.
var errProgramGone = errors.New("the program the run ran at the checkpoint is not at hand")

// findProgram is where p's program is on this machine: where it ran, if
// it is still that program there (a build in the cache keyed by its
// sources' hash stays), else the run's folder's build of the plugin now
// (built again from its sources, or found in the cache by their hash) if
// it is the same program.
func findProgram(p PluginProgram, home *Config) (string, error) {
	if h, err := hashFile(p.Exe); err == nil && h == p.Hash {
		return p.Exe, nil
	}
	var spec *host.Spec
	for _, pc := range home.Plugins {
		if pc.Name == p.Name {
			spec = &host.Spec{Name: pc.Name, Path: pc.Path, Dir: home.Dir}
		}
	}
	if spec == nil {
		return "", fmt.Errorf("game: plugin %s: %w: the run's config names no such plugin", p.Name, errProgramGone)
	}
	exe, err := host.Program(context.Background(), *spec, "")
	if err != nil {
		return "", fmt.Errorf("game: plugin %s: %w (%s is gone): %w", p.Name, errProgramGone, p.Exe, err)
	}
	if h, err := hashFile(exe); err != nil || h != p.Hash {
		return "", fmt.Errorf("game: plugin %s: %w: %s is gone, and the build of %s is another program (its sources changed since)", p.Name, errProgramGone, p.Exe, home.Abs(spec.Path))
	}
	return exe, nil
}

// placeProgram puts the program exe at p (in a copy of the game's files):
// a symbolic link to it, or a copy where links cannot be made. Nothing
// writes through it: a replayed reload leaves the conductor's plugin
// paths alone (replayFiles).
func placeProgram(exe, p string) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(exe, p); err == nil {
		return nil
	}
	data, err := readfile.Read(exe, maxClusterFiles, "plugin program")
	if err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o755)
}

// restore puts a file the conductor keeps out of its copy into the store
// again for its link's shards (store), fetched by hash.
func restore(files cluster.FileStore, f cluster.ReloadFile, store bool) error {
	if !store || files == nil {
		return nil
	}
	data, err := files.Get(f.Hash)
	if err != nil {
		return fmt.Errorf("game: fetching the reload's %s: %w", f.Path, err)
	}
	if cluster.HashOf(data) != f.Hash {
		return fmt.Errorf("game: the reload's %s fetched with another hash", f.Path)
	}
	if _, err := files.Put(data); err != nil {
		return fmt.Errorf("game: storing the reload's %s for the shards: %w", f.Path, err)
	}
	return nil
}

// programPaths are the paths, among the files of man, of the plugins of a
// conductor opened from a copy of a checkpoint's files: their programs
// stand there (WriteCheckpointFiles), which a replayed reload leaves
// alone.
func (c *Conductor) programPaths(man *cluster.ReloadManifest) map[string]bool {
	cfg := c.g.cfg
	if len(cfg.Plugins) == 0 {
		return nil
	}
	root, err := filesRoot(cfg, man.Config)
	if err != nil {
		return nil // syncFiles says what is wrong
	}
	out := make(map[string]bool, len(cfg.Plugins))
	for _, p := range cfg.Plugins {
		at, err := filepath.Abs(cfg.Abs(p.Path))
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(root, at); err == nil {
			out[filepath.ToSlash(rel)] = true
		}
	}
	return out
}

// rebuiltPrograms puts at the copy's path of each plugin a replayed reload
// builds again (man.Plugins) the program the run's folder builds now,
// which is what the reload built there, unless the plugin's sources
// changed since.
func (c *Conductor) rebuiltPrograms(man *cluster.ReloadManifest) error {
	for _, name := range man.Plugins {
		for _, p := range c.home.Plugins {
			if p.Name != name {
				continue
			}
			exe, err := host.Program(context.Background(), host.Spec{Name: p.Name, Path: p.Path, Dir: c.home.Dir}, "")
			if err != nil {
				return fmt.Errorf("game: replaying a reload of plugin %s: %w", name, err)
			}
			at := c.g.cfg.Abs(p.Path)
			if err := os.Remove(at); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := placeProgram(exe, at); err != nil {
				return fmt.Errorf("game: replaying a reload of plugin %s: %w", name, err)
			}
		}
	}
	return nil
}
