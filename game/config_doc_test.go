package game

import "testing"

// TestConfigKeys_everyKeyDescribed: the keys of the Config struct and the
// descriptions of configDocs match one for one, so the reference page and
// the config's JSON Schema describe every key the loader reads.
func TestConfigKeys_everyKeyDescribed(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range ConfigKeys() {
		name := k.Table + "." + k.Key
		seen[name] = true
		if k.Doc == "" {
			t.Errorf("%s has no description in configDocs", name)
		}
		if known := knownKeys[k.Table]; !contains(known, k.Key) {
			t.Errorf("%s is not in the unknown-key message's list %v", name, known)
		}
	}
	for name := range configDocs {
		if !seen[name] {
			t.Errorf("configDocs describes %s, which the Config struct does not have", name)
		}
	}
	if len(seen) == 0 {
		t.Fatal("no keys")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
