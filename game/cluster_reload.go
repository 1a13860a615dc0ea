package game

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/btrun/btrun/cluster"
	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// A reload in a cluster (docs/cluster.md, "Reloads"): Conductor.Reload is
// Game.Reload between the same two steps, with the same lines at the same
// places of the trace and the output, and the same agents after it.
//
// It is an input from outside the run (a replay cannot read the files
// again from disk: they may have changed since), so the conductor stores
// the game's files as they are now in the run's FileStore by hash and
// journals a manifest naming them before it applies it. It applies it as
// one process does, on the conductor: it gathers the shards' agents into
// its copies (as a save does; a conductor without copies makes them for
// the reload only, cluster_reload_copies.go), reloads its own game
// (Game.Reload: the checks, the carry of every agent with its gates, the
// lines one process writes, or the failure one process prints, after which
// the shards' agents change only as one process's did before it failed:
// cluster_reload_failed.go). Then every shard brings its files to the manifest (fetching
// by hash what differs) and loads them again with fresh agents (Reload
// message), and the conductor gives each shard its agents' carried saves
// and the gates' state, as a load does. So a shard never decides a carry:
// the carry's decisions (who keeps its place, which gate holds go) are
// taken once, on the conductor, over every agent in config order.

// SetFiles makes the conductor store the game's files of every reload in
// fs, so that a replay and a shard that joins later find them by hash;
// nil stores none (the shards must then hold the same files already:
// cluster.NewLocal's shards opened from the same folder).
func (c *Conductor) SetFiles(fs cluster.FileStore) { c.files = fs }

// Reload loads the game's tree files, scripts and (on the conductor) the
// named plugins again between two steps, as Game.Reload does in one
// process, journaled first (SetJournal). An error wrapping ErrReload
// means nothing changed anywhere (the output says why, as one process's
// does); any other error is the cluster's. Options.Files and Override
// are one process's only.
func (c *Conductor) Reload(opts ReloadOptions) (*ReloadReport, error) {
	if opts.Files != nil || opts.Override != nil {
		return nil, fmt.Errorf("%w: a reload from an fs.FS or with overridden files (the shards open the game's files)", ErrClusterFeature)
	}
	if err := c.replayDue(); err != nil { // replayed inputs of this step come first
		return nil, err
	}
	if err := c.reloadNow(opts); err != nil { // a page's or an inputs file's reload waits for the replay's end (cluster_reload_held.go)
		return nil, err
	}
	man, err := c.manifest(opts)
	if err != nil {
		return nil, err
	}
	data, err := cluster.EncodeReload(man)
	if err != nil {
		return nil, err
	}
	c.reloaded, c.fresh = nil, true
	defer func() { c.fresh = false }()
	if err := c.journal(cluster.Input{Kind: cluster.InputReload, Data: data}); err != nil {
		return nil, err
	}
	return c.reloaded, nil
}

// ReloadAll reloads every file and plugin of the config, as
// Game.ReloadAll does: the reload's line, or why nothing was applied.
func (c *Conductor) ReloadAll() (string, error) {
	names := make([]string, len(c.g.cfg.Plugins))
	for i, p := range c.g.cfg.Plugins {
		names[i] = p.Name
	}
	rep, err := c.Reload(ReloadOptions{Plugins: names})
	if err != nil {
		return "", err
	}
	return rep.summary(), nil
}

// manifest stores the game's files as they are now (ClusterFiles) and
// names them by hash.
func (c *Conductor) manifest(opts ReloadOptions) (*cluster.ReloadManifest, error) {
	files, config, err := c.g.ClusterFiles()
	if err != nil {
		return nil, fmt.Errorf("game: a reload's files: %w", err)
	}
	man := &cluster.ReloadManifest{Config: config, Changed: opts.Changed, Plugins: opts.Plugins}
	for _, f := range files {
		h := cluster.HashOf(f.Data)
		if c.files != nil {
			if h, err = c.files.Put(f.Data); err != nil {
				return nil, fmt.Errorf("game: storing %s for the shards: %w", f.Path, err)
			}
		}
		man.Files = append(man.Files, cluster.ReloadFile{Path: f.Path, Hash: h, Exec: f.Exec})
	}
	return man, nil
}

// applyReload applies a journaled reload (cluster_inputs.go's apply): told
// is the reload's failure, which one process prints too (nothing changed
// anywhere); err is the cluster's.
func (c *Conductor) applyReload(in *cluster.Input) (told, err error) {
	g := c.g
	man, err := cluster.DecodeReload(in.Data)
	if err != nil {
		return nil, err
	}
	c.reloads++
	if !c.fresh { // a replay: the files must be those the reload read
		if err := c.replayFiles(man); err != nil { // cluster_reload_recover.go
			return nil, err
		}
		defer c.leaveCopy(man)
	}
	saves, err := c.c.Save(g.step)
	if err != nil {
		return nil, err
	}
	if c.h.copies() {
		if err := c.h.takeSaves(saves); err != nil {
			return nil, err
		}
	} else {
		if err := c.h.makeCopies(saves); err != nil { // cluster_reload_copies.go
			return nil, err
		}
		defer c.h.forgetCopies()
	}
	// What the copies' restores sent (a load's, a save's) is not the
	// run's: the shards' agents did it already. The reload's are.
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	rep, rerr := g.Reload(ReloadOptions{Changed: man.Changed, Plugins: man.Plugins})
	if err := c.h.writeOwn(); err != nil {
		return nil, err
	}
	if rerr != nil {
		if err := c.afterFailedReload(saves, man); err != nil { // cluster_reload_failed.go
			return nil, err
		}
		return rerr, nil
	}
	if err := c.carrySent(); err != nil {
		return nil, err
	}
	if man, err = c.withNewBuilds(man, rep); err != nil { // cluster_plugin_reload.go: the plugins' new builds go to the shards
		return nil, err
	}
	data, err := cluster.EncodeReload(man)
	if err != nil {
		return nil, err
	}
	if err := c.c.ReloadShards(g.step, data); err != nil {
		return nil, err
	}
	shared, err := g.sharedItems() // cluster_shared.go: the carried game.shared (the shards' init ran again)
	if err != nil {
		return nil, err
	}
	if err := c.h.loadShards(c.c, shared...); err != nil { // cluster_range.go: the carried agents, the gates
		return nil, err
	}
	c.reloaded, c.applied = rep, man
	c.rec.failed = nil // cluster_reload_failed.go
	return nil, nil
}

// carrySent routes the signals the reload sent on the conductor (a
// restarted agent's cancel hook's) into the next step's first deliveries,
// as one process delivers them then.
func (c *Conductor) carrySent() error {
	g := c.g
	if len(g.outbox) == 0 {
		return nil
	}
	sigs := make([]cluster.Item, 0, len(g.outbox))
	for _, s := range g.outbox {
		data, err := g.cl.encodeValue(s.data)
		if err != nil {
			return err
		}
		sigs = append(sigs, cluster.Item{Kind: cluster.Signal, Agent: s.from.idx, Text: s.to, Name: s.signal, Data: data})
	}
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	return c.c.CarryIn(sigs)
}

// sameFiles checks that the conductor's files are those man names (a
// replay reloads from them).
func (c *Conductor) sameFiles(man *cluster.ReloadManifest) error {
	files, _, err := c.g.ClusterFiles()
	if err != nil {
		return fmt.Errorf("game: replaying a reload: %w", err)
	}
	have := make(map[string]string, len(files))
	for _, f := range files {
		have[f.Path] = cluster.HashOf(f.Data)
	}
	for _, f := range man.Files {
		if have[f.Path] != f.Hash {
			return fmt.Errorf("game: replaying a reload: %s is not the file it reloaded (its content's hash is %s, not %s)", f.Path, have[f.Path], f.Hash)
		}
	}
	return nil
}

// Reload is the shard's part of a reload: its copy of the game's files
// brought to the manifest, then loaded again with fresh agents, which the
// conductor's Load of their carried saves follows.
func (h *shardHost) Reload(m *cluster.ReloadManifest) error {
	rebuilt, err := h.g.changedPlugins(m) // cluster_plugin_reload.go
	if err != nil {
		return err
	}
	if err := h.syncFiles(m); err != nil {
		return err
	}
	return h.g.reloadBare(rebuilt)
}

// syncFiles writes the files of m whose content the shard's copy does not
// have, fetched by hash: the shard's files stand where the conductor's
// stand relative to the config (natsnet.WriteFiles wrote them so).
func (h *shardHost) syncFiles(m *cluster.ReloadManifest) error {
	return syncFiles(h.g, h.files, m, false, nil)
}

// syncFiles writes the files of m whose content g's folder does not have,
// fetched from files by hash; store puts each fetched file into files
// again (a replaying conductor's: its link's shards fetch it there). The
// paths in keep are not written (a replaying conductor's plugins, whose
// programs stand there: cluster_reload_programs.go), only stored.
func syncFiles(g *Game, files cluster.FileStore, m *cluster.ReloadManifest, store bool, keep map[string]bool) error {
	cfgAbs, err := filepath.Abs(g.cfg.Path)
	if err != nil {
		return err
	}
	cfgSlash := filepath.ToSlash(cfgAbs)
	if !filepath.IsLocal(filepath.FromSlash(m.Config)) || !strings.HasSuffix(cfgSlash, "/"+m.Config) {
		return fmt.Errorf("game: a reload of config %s on a shard whose config is %s", m.Config, cfgAbs)
	}
	root := filepath.FromSlash(strings.TrimSuffix(cfgSlash, m.Config))
	total := int64(0)
	for _, f := range m.Files {
		if !filepath.IsLocal(filepath.FromSlash(f.Path)) {
			return fmt.Errorf("game: a reload names %s, which would leave the game's folder", f.Path)
		}
		p := filepath.Join(root, filepath.FromSlash(f.Path))
		if keep[f.Path] {
			if err := restore(files, f, store); err != nil {
				return err
			}
			continue
		}
		if have, err := readfile.Read(p, maxClusterFiles-total, "file of the game"); err == nil && cluster.HashOf(have) == f.Hash {
			total += int64(len(have))
			continue
		}
		if files == nil {
			return fmt.Errorf("game: the reload's %s differs from the shard's, and the shard has no file store to fetch it from", f.Path)
		}
		data, err := files.Get(f.Hash)
		if err != nil {
			return fmt.Errorf("game: fetching the reload's %s: %w", f.Path, err)
		}
		if cluster.HashOf(data) != f.Hash {
			return fmt.Errorf("game: the reload's %s fetched with another hash", f.Path)
		}
		if store {
			if _, err := files.Put(data); err != nil {
				return fmt.Errorf("game: storing the reload's %s for the shards: %w", f.Path, err)
			}
		}
		total += int64(len(data))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := writeAtomic(p, data); err != nil {
			return fmt.Errorf("game: writing the reload's %s: %w", f.Path, err)
		}
		mode := os.FileMode(0o644)
		if f.Exec {
			mode = 0o755
		}
		if err := os.Chmod(p, mode); err != nil {
			return err
		}
	}
	return nil
}

// reloadBare loads the game's files again into a new loadout (trees,
// scripts, the plugins named in rebuilt restarted with the program or
// declarations now at their paths, the world script run as a continued save runs it), with fresh
// agents: a shard's part of a reload, whose agents the conductor carried
// over (their saves come next). Nothing it writes is the run's.
func (g *Game) reloadBare(rebuilt []string) error {
	next, err := g.load(true, rebuilt)
	if err != nil {
		return fmt.Errorf("game: the shard cannot load the files the conductor reloaded: %w", err)
	}
	old := g.current()
	if err := g.respawn(old, next); err != nil {
		next.close()
		return err
	}
	var world runtime.Value
	if old.lua != nil && old.lua.world != nil && old.lua.game != nil {
		old.beginSave()
		enc := savecodec.NewEncoder()
		err := old.lua.world.EncodeSave(enc)
		old.endSave()
		if err != nil {
			next.close()
			return err
		}
		world = runtime.DecodeValue(savecodec.NewDecoder(enc.Bytes(), enc.Strings()))
	}
	rng := g.randomState()
	oldLua := g.lua
	g.use(next)
	if g.lua != nil {
		g.lua.engine.SetRandomState(rng)
		if g.lua.game != nil {
			g.updateGameTable(g.step, g.Time(g.step))
			g.lua.world.LoadValue(world) // as one process's reload: an error there is a warning, the conductor's to print
		}
	}
	g.measureLua()
	if next.update != nil { // the plugins' new builds (cluster_plugin_reload.go)
		next.update.Commit()
	}
	if oldLua != nil {
		g.lua.errors = oldLua.errors
		oldLua.engine.Close()
		old.closeExtra()
	}
	if err := g.flushTrace(); err != nil {
		return err
	}
	g.cl.trace.Reset()
	g.cl.out.Reset()
	clear(g.outbox)
	g.outbox = g.outbox[:0]
	return nil
}
