package host

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/btrun/btrun/internal/readfile"
	"github.com/btrun/btrun/internal/tempfile"
)

// resolve turns a Spec's path into an executable: an executable file is
// used as is; a folder holding a Go main package is built once into the
// cache, keyed by its sources.
func resolve(ctx context.Context, spec *Spec, cacheDir string, log logFunc, progress func(string)) (string, error) {
	path := spec.Path
	if path == "" {
		return "", newErr(fmt.Sprintf("host: plugin %s: no path given", spec.Name), ErrStart)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(spec.Dir, path)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", newErr(fmt.Sprintf("host: plugin %s: %v", spec.Name, err), ErrStart, err)
	}
	if fi.IsDir() {
		if !isMainPackage(path) {
			return "", newErr(fmt.Sprintf("host: plugin %s: %s is a folder without a Go main package; path names an executable or a Go main package", spec.Name, path), ErrStart)
		}
		return buildPackage(ctx, spec.Name, path, cacheDir, log, progress)
	}
	if fi.Mode()&0o111 == 0 {
		return "", newErr(fmt.Sprintf("host: plugin %s: %s is not executable; path names an executable or a Go main package", spec.Name, path), ErrStart)
	}
	return path, nil
}

// isMainPackage reports whether dir holds a non-test Go file of package main.
func isMainPackage(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		if pkg, err := packageClause(f); err == nil && pkg == "main" {
			return true
		}
	}
	return false
}

// packageClause reads the package name of a Go file without parsing it all.
func packageClause(file string) (string, error) {
	data, err := readfile.Read(file, readfile.SourceLimit, "Go source file")
	if err != nil {
		return "", err
	}
	inComment := false
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if inComment {
			if i := strings.Index(line, "*/"); i >= 0 {
				inComment, line = false, strings.TrimSpace(line[i+2:])
			} else {
				continue
			}
		}
		if strings.HasPrefix(line, "/*") && !strings.Contains(line, "*/") {
			inComment = true
			continue
		}
		if rest, ok := strings.CutPrefix(line, "package "); ok {
			return strings.TrimSpace(strings.SplitN(rest, "//", 2)[0]), nil
		}
	}
	return "", fmt.Errorf("no package clause")
}

// buildPackage builds the main package in dir into
// cacheDir/<key>/<name>, where key hashes the Go version and platform, the
// module's go.mod and go.sum, and every source file of the package and of
// the module's packages it imports. An existing binary with that key is
// used as is. The build writes a temporary file and renames it, so
// concurrent runs never see a half-written binary.
func buildPackage(ctx context.Context, name, dir, cacheDir string, log logFunc, progress func(string)) (string, error) {
	fail := func(format string, args ...any) (string, error) {
		return "", newErr(fmt.Sprintf("host: plugin %s: "+format, append([]any{name}, args...)...), ErrStart, ErrBuild)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return fail("%s is a Go package, but no go command is on PATH to build it; build it yourself (go build -o %s %s) and point path at the executable", dir, name, dir)
	}
	root, err := moduleRoot(dir)
	if err != nil {
		return fail("%v", err)
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return fail("%v", err)
	}
	pkg := "./" + filepath.ToSlash(rel)
	if rel == "." {
		pkg = "."
	}
	// People see the package's import path (the plugin's own module is
	// outside btrun's, and "./." names nothing) and where it is.
	shown := importPath(root, rel) + " (in " + dir + ")"
	key, err := sourceKey(ctx, goBin, root, pkg)
	if err != nil {
		return fail("cannot list the sources of %s: %v", shown, indentLines(err.Error()))
	}
	if cacheDir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return fail("no cache folder: %v (set a cache folder in the options)", err)
		}
		cacheDir = filepath.Join(base, "btrun", "plugins")
	}
	exe := filepath.Join(cacheDir, key, sanitize(name))
	if fi, err := os.Stat(exe); err == nil && fi.Mode().IsRegular() {
		log("debug", fmt.Sprintf("plugin %s: using cached build %s", name, exe))
		markUsed(exe)
		return exe, nil
	}
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		return fail("cache folder: %v", err)
	}
	tempfile.RemoveStale(exe) // left by builds killed before their rename
	tmp := tempfile.Name(exe)
	log("debug", fmt.Sprintf("plugin %s: building %s into %s", name, shown, filepath.Dir(exe)))
	progress(fmt.Sprintf("plugin %s: building %s; the first build can take a minute, later runs use the cached build", name, shown))
	cmd := exec.CommandContext(ctx, goBin, "build", "-o", tmp, pkg)
	toolCommand(cmd)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err = runWithProgress(cmd, buildProgressEvery, func() {
		progress(fmt.Sprintf("plugin %s: still building (%s)", name, time.Since(start).Round(time.Second)))
	})
	if err != nil {
		os.Remove(tmp)
		text := strings.TrimSpace(out.String())
		return fail("go build %s failed (%s):\n%s", shown, countCompilerErrors(text), indentLines(text))
	}
	progress(fmt.Sprintf("plugin %s: built in %s", name, time.Since(start).Round(100*time.Millisecond)))
	if err := os.Rename(tmp, exe); err != nil {
		os.Remove(tmp)
		return fail("cache: %v", err)
	}
	pruneBuilds(cacheDir, sanitize(name), exe, time.Now())
	return exe, nil
}

// waitDelay bounds how long a cancelled go command's output is waited for.
const waitDelay = 5 * time.Second

// buildProgressEvery is how often a build under way says it still runs.
const buildProgressEvery = 10 * time.Second

// runWithProgress runs cmd, calling tick every interval until it ends.
func runWithProgress(cmd *exec.Cmd, interval time.Duration, tick func()) error {
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case err := <-done:
			return err
		case <-t.C:
			tick()
		}
	}
}

// importPath is the import path of the package in folder rel of the module
// at root, from go.mod's module line; the folder's path when there is none.
func importPath(root, rel string) string {
	mod := ""
	if data, err := readfile.Read(filepath.Join(root, "go.mod"), readfile.SourceLimit, "go.mod"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
				mod = strings.Trim(strings.TrimSpace(rest), `"`)
				break
			}
		}
	}
	switch {
	case mod == "":
		return filepath.Join(root, rel)
	case rel == ".":
		return mod
	}
	return mod + "/" + filepath.ToSlash(rel)
}

// compilerError matches the lines where the go command reports one
// problem: FILE.go:LINE:COL: message.
var compilerError = regexp.MustCompile(`(?m)^\S+\.go:\d+(:\d+)?: `)

// countCompilerErrors says how many problems the go command's output
// reports, for the summary line of a failed build.
func countCompilerErrors(out string) string {
	switch n := len(compilerError.FindAllString(out, -1)); n {
	case 0:
		return "see the go command's output"
	case 1:
		return "1 compiler error"
	default:
		return fmt.Sprintf("%d compiler errors", n)
	}
}

// indentLines indents every line of a multi-line text, so that a tool's
// output reads as the details of one problem.
func indentLines(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

func moduleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%s is not inside a Go module (no go.mod above it)", dir)
		}
		d = parent
	}
}

// listFormat prints, for each package of the main module that pkg depends
// on, its folder and source files.
const listFormat = `{{if .Module}}{{if .Module.Main}}{{.Dir}}{{range .GoFiles}}	{{.}}{{end}}{{range .CgoFiles}}	{{.}}{{end}}{{range .CFiles}}	{{.}}{{end}}{{range .SFiles}}	{{.}}{{end}}{{range .EmbedFiles}}	{{.}}{{end}}
{{end}}{{end}}`

func sourceKey(ctx context.Context, goBin, root, pkg string) (string, error) {
	h := sha256.New()
	io.WriteString(h, "btrun plugin build 1\n"+pkg+"\n")
	env := exec.CommandContext(ctx, goBin, "env", "GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOFLAGS", "GOEXPERIMENT")
	toolCommand(env)
	env.Dir = root
	out, err := env.Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	h.Write(out)
	for _, f := range []string{"go.mod", "go.sum"} {
		if err := hashFile(h, filepath.Join(root, f), f); err != nil && !os.IsNotExist(err) {
			return "", err
		}
	}
	list := exec.CommandContext(ctx, goBin, "list", "-deps", "-f", listFormat, pkg)
	toolCommand(list)
	list.Dir = root
	var stderr bytes.Buffer
	list.Stderr = &stderr
	out, err = list.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.Split(line, "\t")
		for _, f := range parts[1:] {
			p := filepath.Join(parts[0], f)
			rel, _ := filepath.Rel(root, p)
			if err := hashFile(h, p, filepath.ToSlash(rel)); err != nil {
				return "", err
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func hashFile(h io.Writer, path, label string) error {
	data, err := readfile.Read(path, readfile.SourceLimit, "Go source file")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	fmt.Fprintf(h, "%s %x\n", label, sum)
	return nil
}

func sanitize(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "plugin"
	}
	return b.String()
}
