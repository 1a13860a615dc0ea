package runtime

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/btrun/btrun/runtime/savecodec"
)

func str(s string) Value     { return Value{Kind: StringValue, Str: s} }
func numv(f float64) Value   { return Value{Kind: NumberValue, Num: f} }
func boolv(b bool) Value     { return Value{Kind: BoolValue, Bool: b} }
func table(f ...Field) Value { return Value{Kind: TableValue, Table: f} }

// keyedTable is a table with the keys 1..n, then extra.
func keyedTable(n int, extra ...Field) Value {
	v := table()
	for i := range n {
		v.Table = append(v.Table, Field{numv(float64(i + 1)), boolv(true)})
	}
	v.Table = append(v.Table, extra...)
	return v
}

// nested is a table nested depth deep: {a = {a = ... {a = 1}}}.
func nested(depth int) Value {
	v := numv(1)
	for range depth {
		v = table(Field{str("a"), v})
	}
	return v
}

func TestCheckData_acceptsWhatASignalCarries(t *testing.T) {
	for name, v := range map[string]Value{
		"nil":      {},
		"boolean":  boolv(false),
		"number":   numv(-2.5),
		"infinity": numv(math.Inf(1)),
		"nan":      numv(math.NaN()),
		"string":   str("grunt-2"),
		"table":    table(Field{str("who"), str("grunt-2")}, Field{str("x"), numv(4)}, Field{numv(1), boolv(true)}, Field{numv(-7), str("")}),
		"16 deep":  nested(MaxDataDepth),
		"64 KiB":   str(strings.Repeat("x", MaxDataSize-4)), // tag and a 3-byte length
	} {
		if err := CheckData(v); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestCheckData_refusesWithThePath(t *testing.T) {
	cases := []struct {
		name string
		v    Value
		want string
	}{
		{"17 deep", nested(MaxDataDepth + 1), "data.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a: tables nested more than 16 deep"},
		{"float key", table(Field{str("pos"), table(Field{numv(1.5), numv(1)})}), "data.pos: key 1.5 is not an integer; keys are strings or integers"},
		{"huge key", table(Field{numv(1 << 60), numv(1)}), "key 1.152921504606847e+18 is not an integer"},
		{"boolean key", table(Field{boolv(true), numv(1)}), "data: a boolean key; keys are strings or integers"},
		{"table key", table(Field{table(), numv(1)}), "data: a table key"},
		{"repeated key", table(Field{str("x"), numv(1)}, Field{str("x"), numv(2)}), `data: key "x" appears twice`},
		{"repeated key in a big table", keyedTable(40, Field{numv(7), numv(0)}), `data: key 7 appears twice`},
		{"nil entry", table(Field{numv(3), Value{}}), "data[3]: a table entry cannot hold nil"},
		{"odd key path", table(Field{str("two words"), table(Field{str("k"), Value{Kind: 9}})}), `data["two words"].k: value of unknown kind 9`},
		{"too big", str(strings.Repeat("x", MaxDataSize)), "65540 bytes once encoded; signal data may take at most 65536 (64 KiB)"},
		{"too big in many parts", table(Field{numv(1), str(strings.Repeat("x", 40000))}, Field{numv(2), str(strings.Repeat("y", 40000))}), "bytes once encoded"},
	}
	for _, c := range cases {
		err := CheckData(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrData) {
			t.Errorf("%s: got %v, want ErrData containing %q", c.name, err, c.want)
		}
	}
}

// TestDataSize_isTheEncodedSize: for data without strings (which a save
// writes through its string table), DataSize is what the encoder writes.
func TestDataSize_isTheEncodedSize(t *testing.T) {
	for _, v := range []Value{{}, boolv(true), numv(0), numv(300), numv(-1e300), numv(math.Copysign(0, -1)),
		table(Field{numv(1), numv(2)}, Field{numv(-3), table(Field{numv(200), boolv(false)})}),
		table(Field{numv(1), table(Field{numv(1), table(Field{numv(1), numv(0.5)})})})} {
		e := savecodec.NewEncoder()
		EncodeValue(e, v)
		if got, want := DataSize(v), len(e.Bytes()); got != want {
			t.Errorf("DataSize(%s) = %d, the encoder wrote %d", DataText(v, 100), got, want)
		}
	}
	if got := DataSize(str("héllo")); got != 1+1+6 {
		t.Errorf("DataSize of a string = %d, want tag + length + bytes = 8", got)
	}
}

func TestSortData_putsIntegersThenStrings(t *testing.T) {
	v := table(Field{str("z"), numv(1)}, Field{numv(10), numv(2)}, Field{str("a"), table(Field{str("y"), numv(0)}, Field{numv(-1), numv(0)})}, Field{numv(2), numv(3)})
	SortData(v)
	if got := DataText(v, 200); got != `{[2] = 3, [10] = 2, a = {[-1] = 0, y = 0}, z = 1}` {
		t.Errorf("sorted: %s", got)
	}
}

// TestSignalData_refusedFromGo: Go senders get the same checks; nothing is
// delivered or routed.
func TestSignalData_refusedFromGo(t *testing.T) {
	h := newHarness(t, heldTree, nil)
	rec := &routeRecorder{}
	h.env.Router = rec
	bad := nested(MaxDataDepth + 1)
	if err := h.agent.SignalData("Hurt", bad); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), `agent a1: signal "Hurt": runtime: signal data cannot be sent: data.a`) {
		t.Errorf("SignalData: %v", err)
	}
	if err := h.agent.Send("all", "Hurt", bad); !errors.Is(err, ErrData) {
		t.Errorf("Send: %v", err)
	}
	if h.agent.Held("Hurt") || len(rec.routed) > 0 {
		t.Error("refused data was delivered")
	}
	h.must(h.agent.Send("b2", "Hurt", numv(4)))
	if got := strings.Join(rec.routed, " "); got != "a1->b2:Hurt=4" {
		t.Errorf("routed %s", got)
	}
}
