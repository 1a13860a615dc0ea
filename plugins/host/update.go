package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/btrun/btrun/plugins/sdk"
	"github.com/btrun/btrun/runtime"
)

// Replacing plugins while the game runs (btrun run -watch). A plugin whose
// sources changed is built again and its new build started beside the
// running process, which goes on serving while the game checks that its
// trees bind against what the new build declares. Only then does the new
// process take over (Commit), between two steps: no call is in flight then,
// so none has to be retried. If anything fails (the build, the start, the
// bind), the new process is stopped (Abort) and the old one never noticed.

// Update is a replacement of some of a Set's plugins, prepared while their
// old processes serve.
type Update struct {
	s    *Set
	next []replacement
	done bool
}

// replacement is the new build of one plugin, started and described; inst
// is nil (and exe "") for a plugin that runs elsewhere, declared only.
type replacement struct {
	p    *plugin
	exe  string
	inst *instance
	desc *sdk.Description
}

// Prepare builds the named plugins again and starts the new builds that
// differ from the running ones: a Go package whose sources did not change
// builds into the same cached executable and is left alone; an executable
// is started again as it is now. A name the Set does not have, a build or a
// start that fails, stops what Prepare started and returns every problem
// (they wrap ErrStart; a build ErrBuild too): the old processes serve on.
// Prepare belongs to the goroutine that steps the agents, between steps.
func (s *Set) Prepare(ctx context.Context, names []string) (*Update, error) {
	u := &Update{s: s}
	var errs []error
	for _, name := range names {
		p := s.plugin(name)
		if p == nil {
			errs = append(errs, newErr(fmt.Sprintf("host: no plugin %q to rebuild", name), ErrStart))
			continue
		}
		if desc, ok, err := declaredAt(&p.spec); ok { // it runs elsewhere (relay.go): its new declarations only
			if err != nil {
				errs = append(errs, err)
			} else {
				u.next = append(u.next, replacement{p: p, desc: desc})
			}
			continue
		}
		exe, err := resolve(ctx, &p.spec, s.opts.CacheDir, s.log, s.opts.Progress)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if exe == p.exe && isPackage(&p.spec) {
			continue // the same build: nothing changed that it is made of
		}
		inst, desc, err := startInstance(&p.spec, exe, &s.opts, s.log)
		if err == nil {
			if err = checkDescription(p.spec.Name, desc); err != nil {
				inst.kill()
			}
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		u.next = append(u.next, replacement{p: p, exe: exe, inst: inst, desc: desc})
	}
	if err := errors.Join(errs...); err != nil {
		u.Abort()
		return nil, err
	}
	return u, nil
}

// plugin finds a plugin by its name.
func (s *Set) plugin(name string) *plugin {
	for _, p := range s.plugins {
		if p.spec.Name == name {
			return p
		}
	}
	return nil
}

// isPackage reports whether a Spec names a folder (a Go package that is
// built) rather than an executable.
func isPackage(spec *Spec) bool {
	path := spec.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(spec.Dir, path)
	}
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// Restarted names the plugins the update replaces, in config order.
func (u *Update) Restarted() []string {
	var out []string
	for _, r := range u.next {
		out = append(out, r.p.spec.Name)
	}
	return out
}

// Register is Set.Register with what the new builds declare: the trees of
// the game after the update are bound against it.
func (u *Update) Register(reg *runtime.Registry) error {
	return u.s.register(reg, func(p *plugin) *sdk.Description {
		for _, r := range u.next {
			if r.p == p {
				return r.desc
			}
		}
		return p.desc
	})
}

// Commit makes the new builds serve and stops the old processes (a plugin
// that was down, waiting for a restart, is simply up again). Sites bound
// before the update call the new processes from now on, so the trees bound
// through Register must replace the old ones at once. It belongs to the
// stepping goroutine, between steps.
func (u *Update) Commit() {
	if u.done {
		return
	}
	u.done = true
	s := u.s
	for _, r := range u.next {
		p := r.p
		p.mu.Lock()
		old := p.inst
		if p.timer != nil && p.timer.Stop() {
			s.restarts.Done() // the restart that will not run
		}
		if r.inst != nil {
			r.inst.startStep = s.step.Load()
		}
		p.inst, p.exe, p.desc = r.inst, r.exe, r.desc
		p.downWhy, p.due, p.failures = "", false, 0
		p.mu.Unlock()
		if r.inst != nil {
			go p.watch(r.inst)
		}
		if old != nil {
			s.retired.Add(1)
			go func() {
				defer s.retired.Done()
				old.stop()
			}()
		}
		s.log("info", fmt.Sprintf("plugin %s: its new build serves: %s, %s", p.spec.Name,
			plural(len(r.desc.Actions), "action"), plural(len(r.desc.Conditions), "condition")))
	}
	s.flushNotes() // the new builds' lines, at the reload's place among the game's
}

// Abort stops the new builds' processes; the old ones serve on.
func (u *Update) Abort() {
	if u.done {
		return
	}
	u.done = true
	for _, r := range u.next {
		if r.inst != nil {
			r.inst.kill()
		}
	}
}
