package reference

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/btrun/btrun/game"
)

// files lists the repository's files matching ext, outside .git.
func files(t *testing.T, ext string, skip ...string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "fuzz") {
			return filepath.SkipDir
		}
		for _, s := range skip {
			if strings.Contains(filepath.ToSlash(p), s) {
				return nil
			}
		}
		if !d.IsDir() && strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// xmllint returns the xmllint command, failing the test in CI (CI is set)
// when it is missing: .ci/run installs it (Debian's libxml2-utils).
func xmllint(t *testing.T) string {
	path, err := exec.LookPath("xmllint")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("xmllint is not installed (apt-get install libxml2-utils; .ci/run does it)")
		}
		t.Skip("xmllint is not installed (apt-get install libxml2-utils)")
	}
	return path
}

// schemaLoaderDisagree are invalid tree files that the XML Schema accepts:
// their mistakes need the whole tree (ids, subtree files, declarations
// across files) or the loader's encoding rules, which no XML Schema knows.
var schemaLoaderDisagree = map[string]bool{
	"duplicate_id.xml": true, "subtree_duplicate_ids.xml": true, "subtree_cycle.xml": true,
	"subtree_missing.xml": true, "signal_variable_order.xml": true, "two_roots.xml": true,
	"encoding_bom_conflict.xml": true, "encoding_unsupported.xml": true, "encoding_utf16.xml": true,
	"xml_version.xml": true, "id_too_long.xml": true, "dotted_ids_deep.xml": true, // id limits count prefixes
	// abort="lower" needs a choice as the parent, which a schema of
	// globally declared elements cannot see.
	"abort_in_subtree.xml": true, "abort_top_level.xml": true,
	// The sum of a weighted choice's weights is over several elements.
	"weight_sum.xml": true,
}

// TestXSD_acceptsEveryTreeAndRefusesBrokenOnes: every tree file of the
// repository (the example game, the fixtures, the loader's valid corpus)
// validates against editor/behaviortree.xsd, and every file of the loader's
// invalid corpus fails it, but for the mistakes only the loader can see.
func TestXSD_acceptsEveryTreeAndRefusesBrokenOnes(t *testing.T) {
	lint := xmllint(t)
	xsd := filepath.Join(root, "editor", "behaviortree.xsd")
	valid := files(t, ".xml", "/invalid/")
	if len(valid) < 15 {
		t.Fatalf("only %d tree files found: %v", len(valid), valid)
	}
	for _, f := range valid {
		if nativeDocument(t, f) {
			continue
		}
		if out, err := exec.Command(lint, "--noout", "--schema", xsd, f).CombinedOutput(); err != nil {
			t.Errorf("%s does not validate: %v\n%s", f, err, out)
		}
	}
	invalid, _ := filepath.Glob(filepath.Join(root, "runtime", "testdata", "invalid", "*.xml"))
	refused := 0
	for _, f := range invalid {
		err := exec.Command(lint, "--noout", "--schema", xsd, f).Run()
		switch {
		case schemaLoaderDisagree[filepath.Base(f)]:
		case err == nil:
			t.Errorf("%s validates, but the loader refuses it", f)
		default:
			refused++
		}
	}
	if refused < 20 {
		t.Errorf("only %d invalid files refused", refused)
	}
}

// TestConfigSchema_acceptsEveryConfigAndRefusesBrokenOnes: every config.toml
// of the repository validates against editor/config.schema.json, and
// configs the loader refuses for a key or a value fail it too.
func TestConfigSchema_acceptsEveryConfigAndRefusesBrokenOnes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "editor", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	configs := files(t, "config.toml")
	if len(configs) < 4 {
		t.Fatalf("only %d configs found", len(configs))
	}
	for _, f := range configs {
		var doc map[string]any
		if _, err := toml.DecodeFile(f, &doc); err != nil {
			t.Fatal(err)
		}
		if errs := validate(schema, doc, ""); len(errs) > 0 {
			t.Errorf("%s: %s", f, strings.Join(errs, "; "))
		}
	}
	base := "[[trees]]\nname = \"t\"\nfile = \"t.xml\"\n[[agents]]\ntree = \"t\"\n"
	for _, c := range []struct{ toml, want string }{
		{"[run]\nstepz = 3\n" + base, "run: unknown key stepz"},
		{"[run]\non_failure = \"halt\"\n" + base, "run.on_failure: \"halt\" is not one of"},
		{"[run]\nsteps = -5\n" + base, "run.steps: -5 is below the minimum 0"},
		{"[run]\ndt = 0\n" + base, "run.dt: 0 is below the minimum 1e-06"},
		{"[run]\nsteps = \"100\"\n" + base, "run.steps: a string, not an integer"},
		{"[run]\nlua_call_timeout = \"100\"\n" + base, "run.lua_call_timeout: \"100\" does not match"},
		{"[run]\nrunaway_limit = 70000\n" + base, "run.runaway_limit: 70000 is above the maximum 65535"},
		{"[[agents]]\ntree = \"t\"\n", "trees: missing"},
		{"[[trees]]\nname = \"t\"\n[[agents]]\ntree = \"t\"\n", "trees[0]: file is required"},
		{base + "count = 0\n", "agents[0].count: 0 is below the minimum 1"},
		{base + "[[signals]]\nat = 1\nsignal = \"S\"\nto = []\n", "signals[0].to: 0 items, fewer than 1"},
		{"[trace]\nfile = 3\n" + base, "trace.file: an integer, not a string"},
	} {
		var doc map[string]any
		if _, err := toml.Decode(c.toml, &doc); err != nil {
			t.Fatal(err)
		}
		errs := strings.Join(validate(schema, doc, ""), "; ")
		if !strings.Contains(errs, c.want) {
			t.Errorf("%q:\n got  %s\n want %s", c.toml, errs, c.want)
		}
		if _, err := game.ParseConfig("config.toml", []byte(c.toml)); err == nil {
			t.Errorf("%q: the loader accepts it, the schema does not", c.toml)
		}
	}
}

// validate checks v against the subset of JSON Schema draft 4 the config
// schema uses (type, properties, additionalProperties: false, required,
// items, minItems, enum, minimum, maximum, exclusiveMinimum, pattern,
// minLength; a type that is a list of types) and returns the problems
// found.
func validate(s map[string]any, v any, at string) []string {
	name := at
	if name == "" {
		name = "(top)"
	}
	var errs []string
	bad := func(format string, args ...any) { errs = append(errs, name+": "+fmt.Sprintf(format, args...)) }
	if types, ok := s["type"].([]any); ok { // one of several types (signal data)
		for _, one := range types {
			alt := maps.Clone(s)
			alt["type"] = one
			if len(validate(alt, v, at)) == 0 {
				return nil
			}
		}
		bad("%s, not one of %v", kind(v), types)
		return errs
	}
	switch want := s["type"]; want {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			bad("%s, not an object", kind(v))
			return errs
		}
		props, _ := s["properties"].(map[string]any)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					bad("unknown key %s", k)
				}
				continue
			}
			errs = append(errs, validate(ps, m[k], join(at, k))...)
		}
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := m[r.(string)]; !ok {
				bad("%s is required", r)
			}
		}
		for k, ps := range props {
			if p := ps.(map[string]any); p["minItems"] != nil {
				if _, ok := m[k]; !ok && at == "" {
					errs = append(errs, k+": missing (at least "+fmt.Sprint(p["minItems"])+")")
				}
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			if m, isTables := v.([]map[string]any); isTables {
				for _, x := range m {
					a = append(a, x)
				}
			} else {
				bad("%s, not an array", kind(v))
				return errs
			}
		}
		if n, ok := s["minItems"].(float64); ok && float64(len(a)) < n {
			bad("%d items, fewer than %g", len(a), n)
		}
		items, _ := s["items"].(map[string]any)
		for i, x := range a {
			errs = append(errs, validate(items, x, fmt.Sprintf("%s[%d]", at, i))...)
		}
	case "string":
		str, ok := v.(string)
		if !ok {
			bad("%s, not a string", kind(v))
			return errs
		}
		if p, ok := s["pattern"].(string); ok && !regexp.MustCompile(p).MatchString(str) {
			bad("%q does not match %s", str, p)
		}
		if n, ok := s["minLength"].(float64); ok && float64(len([]rune(str))) < n {
			bad("%q is shorter than %g", str, n)
		}
		if enum, ok := s["enum"].([]any); ok {
			found := false
			for _, e := range enum {
				found = found || e == str
			}
			if !found {
				bad("%q is not one of %v", str, enum)
			}
		}
	case "integer", "number":
		var f float64
		switch x := v.(type) {
		case int64:
			f = float64(x)
		case float64:
			if want == "integer" {
				bad("a float, not an integer")
				return errs
			}
			f = x
		default:
			bad("%s, not %s", kind(v), map[any]string{"integer": "an integer", "number": "a number"}[want])
			return errs
		}
		if m, ok := s["minimum"].(float64); ok {
			if s["exclusiveMinimum"] == true && !(f > m) {
				bad("%g is not above %g", f, m)
			} else if f < m {
				bad("%g is below the minimum %g", f, m)
			}
		}
		if m, ok := s["maximum"].(float64); ok && f > m {
			bad("%g is above the maximum %g", f, m)
		}
		if math.IsNaN(f) {
			bad("NaN")
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			bad("%s, not a boolean", kind(v))
		}
	default:
		bad("the schema has type %v, which this validator does not know", want)
	}
	return errs
}

func join(at, k string) string {
	if at == "" {
		return k
	}
	return at + "." + k
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case bool:
		return "a boolean"
	case []any, []map[string]any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}

// nativeDocument reports whether a file is a Lumberyard MBT or CryEngine
// BHS document (or BHS block file), or a Drag[en]gine state machine file,
// which the loader translates: the schema describes btrun's own format
// only.
func nativeDocument(t *testing.T, file string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return !bytes.Contains(data, []byte("<behaviorTree")) &&
		(bytes.Contains(data, []byte("<BehaviorTree")) || bytes.Contains(data, []byte("<SelectionTree")) || bytes.Contains(data, []byte("<Blocks>")) ||
			bytes.Contains(data, []byte("<stateMachine>")))
}
