package game

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/internal/tempfile"
	"github.com/btrun/btrun/runtime"
	"github.com/btrun/btrun/runtime/savecodec"
)

// The save file of a run (docs/saves.md describes it field by field).
// Version 2 added each agent's generator, timeout clocks, cooldowns and
// choice orders; version 3 the lanes of parallels; version 4 gates (the
// rules that hold them, and the state of the gates the agents share);
// version 5 each agent's stimuli (the last data and arrival time of each
// signal it holds); version 6 the counts of repeat and attempts and the
// starts of rules with hooks or log.start; version 7 each agent's slots
// (the tree each holds and the tree grafted into it); version 8 the states
// of custom rules; version 9 the world's game.shared, after the world's
// save() (shared_save.go). Older versions still load (for version 1 the agents'
// generators start fresh, and the saved generator becomes the world's).
// The version is runtime.AgentsVersion's: the agents' snapshots in the body
// are read by the runtime's decoder at the file's version.
const (
	SaveMagic   = "BTRUNSAV"
	SaveVersion = runtime.AgentsVersion
)

// MaxSaveSize bounds a save file, in bytes: Save refuses to write a larger
// one and Load to read one. The writer and the reader share it, so that
// every save written loads.
const MaxSaveSize = readfile.SaveLimit

// maxSaveSize is MaxSaveSize, lower in tests.
var maxSaveSize int64 = MaxSaveSize

// ErrSave and ErrLoad mark a save or a load that failed: the run cannot go
// on (exit 1).
var (
	ErrSave = errors.New("game: save failed")
	ErrLoad = errors.New("game: cannot load the save")
)

// killBeforeRename is a test hook: with BTRUN_TEST_KILL_BEFORE_RENAME=1 the
// process kills itself after writing a save's temporary file and before
// renaming it over the old save, the worst moment for a crash.
const killBeforeRename = "BTRUN_TEST_KILL_BEFORE_RENAME"

// encodeSave writes the whole run: settings, schedule progress, world
// state, every agent with the game's bookkeeping about it. A run that
// takes more than MaxSaveSize bytes so is an error: no file could hold it.
// The bytes are the caller's.
func (g *Game) encodeSave() ([]byte, error) {
	data, err := g.saveBytes()
	return bytes.Clone(data), err
}

// saveBytes is encodeSave in memory the game keeps: the bytes are valid
// until its next save. A save to a file writes them and lets them go, so
// that a game saving every few seconds does not take a new buffer the
// size of the save each time, nor make the garbage collector walk its
// whole heap (every agent's Lua tables) that much more often.
func (g *Game) saveBytes() ([]byte, error) {
	return g.encodeSaveOn(saveGoroutines(len(g.agents)))
}

// beginSaveBytes starts a save in the game's own encoder, its head
// written; end (always to be called) ends the Lua state's save, in which
// a table shared by two agents is an error too.
func (g *Game) beginSaveBytes() (e *savecodec.Encoder, end func(), err error) {
	end = func() {}
	if g.lua != nil {
		l := g.current()
		l.beginSave()
		end = l.endSave
	}
	if g.saveEnc == nil {
		g.saveEnc = savecodec.NewEncoder()
	}
	e = g.saveEnc
	e.Reset()
	return e, end, g.encodeSaveHead(e)
}

// encodeSaveOn is saveBytes with the agents written on up to n goroutines
// (savefile_parts.go): the same bytes for any n.
func (g *Game) encodeSaveOn(n int) ([]byte, error) {
	e, end, err := g.beginSaveBytes()
	defer end()
	if err != nil {
		return nil, err
	}
	e.Uvarint(uint64(len(g.agents)))
	for _, ga := range g.agents {
		e.String(ga.a.ID())
		e.Bool(ga.stopped)
		e.Uvarint(uint64(ga.failures))
		e.Uvarint(uint64(ga.errors))
		e.String(g.doing[ga.idx])
	}
	agents := g.Agents()
	if err := runtime.EncodeAgentsOn(e, agents, g.hostStateOf(agents), n); err != nil {
		return nil, err
	}
	return g.saveContainer(e)
}

// encodeSaveHead writes what a save holds before its agents: the settings,
// the schedule's progress, the world's state.
func (g *Game) encodeSaveHead(e *savecodec.Encoder) error {
	e.Uvarint(g.step)
	e.Float(g.cfg.Run.Dt)
	e.Varint(g.seed())
	e.Uvarint(g.randomState()) // the world's generator; agents save their own
	e.Uvarint(uint64(len(g.cfg.Trees)))
	for _, tc := range g.cfg.Trees {
		e.String(tc.Name)
		e.String(g.trees[tc.Name].Tree.Fingerprint)
	}
	e.Uvarint(uint64(len(g.delivered)))
	for _, d := range g.delivered {
		e.Bool(d)
	}
	if err := g.encodeWorld(e); err != nil {
		return err
	}
	return g.encodeShared(e) // shared_save.go
}

// saveContainer frames the save e holds, or refuses one too large.
func (g *Game) saveContainer(e *savecodec.Encoder) ([]byte, error) {
	if n := savecodec.ContainerSize(SaveMagic, SaveVersion, e); n > maxSaveSize {
		return nil, fmt.Errorf("the run takes %d bytes saved, more than the %d (%s) a save file may hold, which is what loading one reads at most; save a smaller game (fewer agents, less in ctx.memory and ctx.agent, fewer stimuli)",
			n, maxSaveSize, Size(maxSaveSize))
	}
	return e.Container(SaveMagic, SaveVersion), nil
}

// Save writes the run to path atomically: a temporary file in the same
// folder, synced, then renamed over the old file, so that a crash at any
// moment leaves either the old save or the new one, never half of one.
// A run whose save would take more than MaxSaveSize bytes is an error,
// and nothing is written: Load would refuse the file.
// Only a regular file is replaced (or a new one created): a save aimed at a
// device, a folder or a pipe is an error, never a rename over it. A path
// that is a symbolic link saves to the file it points to.
func (g *Game) Save(path string) error {
	if err := g.enterCall("save"); err != nil {
		return err
	}
	defer g.leave()
	data, err := g.saveBytes()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("%w: %w", ErrSave, err)
	}
	return nil
}

// saveTarget is the file a save to path replaces: path itself, or the file
// a symbolic link names. It must be a regular file or not exist yet.
func saveTarget(path string) (string, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return "", fmt.Errorf("%s is a symbolic link to nothing that can be written: %w", path, err)
		}
		return saveTarget(real)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("cannot save to %s: it is %s, not a regular file; a save replaces only a regular file (or creates one)", path, readfile.Kind(fi.Mode()))
	}
	return path, nil
}

func writeAtomic(path string, data []byte) error {
	target, err := saveTarget(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	prefix := filepath.Join(dir, "."+filepath.Base(target))
	tempfile.RemoveStale(prefix) // left by runs killed while saving
	f, err := tempfile.Create(prefix)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp)
		return err
	}
	if os.Getenv(killBeforeRename) == "1" {
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill() // SIGKILL where there are signals: a crash at this point, as the test wants
		}
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	return nil
}

// Load continues a saved run: all or nothing. The file is read, decoded and
// checked against this game (same agents, same dt, every saved id still in
// the trees) before anything changes; on any error the game is untouched.
// It returns warnings (trees edited since the save, for instance).
func (g *Game) Load(path string) ([]string, error) {
	if err := g.enter("load"); err != nil {
		return nil, err
	}
	defer g.leave()
	data, err := readfile.Read(path, maxSaveSize, "save file")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLoad, err)
	}
	warnings, err := g.decodeSave(data)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrLoad, path, err)
	}
	return warnings, nil
}

func (g *Game) decodeSave(data []byte) ([]string, error) {
	version, d, err := savecodec.ReadContainer(SaveMagic, data)
	if err != nil {
		return nil, err
	}
	d.ShareStrings(g.saveEnc) // a save this game wrote compares its strings by pointer
	if version < 1 || version > SaveVersion {
		return nil, fmt.Errorf("%w: save format version %d; this btrun reads versions 1 to %d (docs/saves.md)", runtime.ErrCorrupt, version, SaveVersion)
	}
	var warnings []string
	step := d.Uvarint()
	dt := d.Float()
	seed := d.Varint()
	rng := d.Uvarint()
	nTrees := d.Count(2)
	for range nTrees {
		// Tree name and fingerprint, for people reading a save; restore
		// checks the fingerprint each agent's snapshot carries.
		_, _ = d.String(), d.String()
	}
	nSched := d.Count(1)
	delivered := make([]bool, 0, nSched)
	for range nSched {
		delivered = append(delivered, d.Bool())
	}
	world := runtime.DecodeValue(d)
	shared := readShared(d, version) // shared_save.go
	nAgents := d.Count(5)
	// The game's bookkeeping of each agent, checked here and read again
	// from books when applied: no copy of it is kept in between.
	books := *d
	var ids []string // with Options.AgentsFromSave: the save's agents
	for i := range nAgents {
		id := d.String()
		d.Bool()
		d.Uvarint()
		d.Uvarint()
		_ = d.String() // what it was doing
		if g.opts.AgentsFromSave {
			ids = append(ids, id)
		} else if d.Err() == nil && (i >= len(g.agents) || g.agents[i].a.ID() != id) {
			return nil, fmt.Errorf("%w: the save's agent %d is %q, which this config does not have in that place: the save is of another game", runtime.ErrUnknownID, i+1, id)
		}
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	agents := g.Agents()
	var set *agentSet // the agents the save makes the game's (load_agents.go); nil when they are the game's
	if g.opts.AgentsFromSave && !g.hasAgents(ids) {
		peek := *d
		if set, err = g.planAgentSet(&peek, ids); err != nil {
			return nil, err
		}
		defer set.abort() // a no-op once committed
		agents = set.agents()
	}
	switch {
	case step > MaxSteps:
		return nil, fmt.Errorf("%w: the save is at step %d, beyond step %d, the last a run can reach", runtime.ErrCorrupt, step, uint64(MaxSteps))
	case nAgents != len(agents):
		return nil, fmt.Errorf("%w: the save holds %d agents, the config has %d: the save is of another game", runtime.ErrUnknownID, nAgents, len(g.agents))
	case nSched != len(g.delivered):
		return nil, fmt.Errorf("%w: the save has %d scheduled signals, the config %d: the save is of another game", runtime.ErrUnknownID, nSched, len(g.delivered))
	case math.Float64bits(dt) != math.Float64bits(g.cfg.Run.Dt):
		return nil, fmt.Errorf("the save was made with run.dt = %v, the config has %v; a run continues only with the same dt", dt, g.cfg.Run.Dt)
	}
	plan := &g.loadPlan
	if err := plan.Plan(d, agents, g.hostStateOf(agents)); err != nil {
		return nil, err
	}
	if err := d.Done(); err != nil {
		return nil, err
	}
	if err := g.checkWorld(world); err != nil {
		return nil, err
	}
	if err := g.checkShared(shared); err != nil {
		return nil, err
	}
	// Everything checked: apply.
	warnings = append(warnings, plan.Warnings()...)
	var errs []error
	if set != nil {
		errs = append(errs, set.commit())
	}
	if err := plan.Apply(); err != nil {
		errs = append(errs, err)
	}
	g.step = step
	copy(g.delivered, delivered)
	g.activeStale = true // the restore may stop or wake agents
	for i := range nAgents {
		ga := g.agents[i]
		_ = books.String() // the id, checked
		ga.stopped = books.Bool()
		ga.failures = int(books.Uvarint())
		ga.errors = int(books.Uvarint())
		g.doing[i] = books.String()
	}
	if err := g.restoreWorld(world, shared, seed, rng); err != nil {
		errs = append(errs, err)
	}
	return warnings, errors.Join(errs...)
}

func (g *Game) seed() int64 {
	if g.opts.Seed != nil {
		return *g.opts.Seed
	}
	return g.cfg.Run.Seed
}
