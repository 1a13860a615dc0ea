package game

import (
	"slices"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

// TestAgentList_roundTrip: a list of agents crosses to the shards as it was.
func TestAgentList_roundTrip(t *testing.T) {
	list := []agentEntry{{"a-1", 0}, {"b-1", 2}, {"a-2", 0}}
	got, err := decodeAgentList(encodeAgentList(list), 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, list) {
		t.Fatalf("got %v, want %v", got, list)
	}
}

// TestAgentList_bad: a bad list of agents is an error, never a panic or a
// list a shard would take.
func TestAgentList_bad(t *testing.T) {
	good := encodeAgentList([]agentEntry{{"a-1", 0}, {"b-1", 1}})
	raw := func(n uint64, ids ...string) []byte {
		e := savecodec.NewEncoder()
		e.Uvarint(n)
		for _, id := range ids {
			e.String(id)
			e.Uvarint(0)
		}
		return savecodec.WriteContainer(agentListMagic, SaveVersion, e)
	}
	for name, c := range map[string]struct {
		b     []byte
		trees int
		want  string
	}{
		"truncated":    {good[:len(good)-3], 2, "list of agents"},
		"unknown tree": {good, 1, "tree 1"},
		"twice":        {raw(2, "a-1", "a-1"), 2, `"a-1"`},
		"empty id":     {raw(1, ""), 2, `""`},
		"too many":     {raw(1 << 40), 2, "list of agents"},
		"not a list":   {[]byte("BTRUNAGT"), 2, "list of agents"},
	} {
		if _, err := decodeAgentList(c.b, c.trees); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", name, err, c.want)
		}
	}
}

// FuzzAgentList: no bytes make decodeAgentList panic.
func FuzzAgentList(f *testing.F) {
	f.Add(encodeAgentList([]agentEntry{{"a-1", 0}, {"b-1", 1}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		if list, err := decodeAgentList(b, 2); err == nil && len(list) > MaxAgents {
			t.Fatalf("%d agents", len(list))
		}
	})
}
