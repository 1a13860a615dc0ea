package runtime

import (
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// Agent data from a tagged struct: a game's own struct, with `bt:"name"`
// tags on the fields the trees may see, is the agent's data as it is, with
// no Field, SetField or MarshalBinary written by hand:
//
//	type NPC struct {
//		HP    float64           `bt:"hp"`
//		Name  string            `bt:"name"`
//		Pos   Vec               `bt:"pos"` // Vec's fields have bt tags too
//		Loot  []string          `bt:"loot"`
//		Seen  map[string]int    `bt:"seen"`
//		brain *somethingElse    // no tag: the game's, never seen nor saved
//	}
//
//	npcs, err := runtime.DeclareData[NPC]() // once, at start-up (or MustDeclareData)
//	data := npcs.Of(&NPC{HP: 10})           // a runtime.AgentData
//	...
//	npc := runtime.DataOf[*NPC](agent)      // in a Go action: the struct itself
//
// Lua's ctx.agent.hp, a plugin's field "hp" and a save all go through the
// tags. A field is a number (any integer or float type), a boolean, a
// string, a struct whose fields have bt tags, or a slice, array or map (with
// string or integer keys) of those. A struct, slice, array or map field
// reads as a table; writing a table into it (from Lua, its changes at the
// end of the call) changes the Go value, or is an error naming the part
// that does not fit; nothing is dropped. Pointers, interfaces, functions
// and channels cannot be tagged: DeclareData says which field is one.
//
// The type is read once, by DeclareData: each tagged field's offset, size
// and kind. A number, boolean or string field (a tree's usual read or
// write) is then read and written at its offset, without reflection or
// allocation. A table-valued field is built anew at each read, from the
// offsets too (a map's entries by reflection); a table written into a field
// is converted with reflection, as is a restore: those make Go values.

// DataType is a struct type T whose bt-tagged fields are agent data. Make
// it once with DeclareData and use it for every agent of that type.
type DataType[T any] struct{ c *structType }

// DeclareData reads the bt tags of struct type T. Its error (wrapping
// ErrParamDecl) names the field that cannot be agent data.
func DeclareData[T any]() (DataType[T], error) {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		return DataType[T]{}, fmt.Errorf("%w: agent data is a struct, not a %s", ErrParamDecl, t)
	}
	d := dataDecl{open: map[reflect.Type]bool{}}
	n, err := d.node(t, t.String(), 0)
	if err != nil {
		return DataType[T]{}, err
	}
	return DataType[T]{&structType{node: n}}, nil
}

// MustDeclareData is DeclareData for a package-level variable: it panics
// when T cannot be agent data, which is a mistake in the program, found
// when it starts (as regexp.MustCompile does for a pattern).
func MustDeclareData[T any]() DataType[T] {
	d, err := DeclareData[T]()
	if err != nil {
		panic(err)
	}
	return d
}

// Of makes p the data of an agent (give it to AddAgent, or to
// Agent.SetUserData). p must not be nil; the agent reads and writes *p.
func (t DataType[T]) Of(p *T) AgentData {
	if t.c == nil {
		panic("runtime: DataType.Of on a DataType that DeclareData did not make")
	}
	if p == nil {
		panic("runtime: DataType.Of(nil)")
	}
	return &structData{ptr: p, p: unsafe.Pointer(p), t: t.c}
}

// DataOf is the agent's data as the Go type T: the struct pointer given to
// DataType.Of (T is *NPC then), or the AgentData itself when it is a T. It
// is the zero T when the agent has no such data. It costs two type
// assertions: Go actions call it at every run.
func DataOf[T any](a *Agent) T {
	d := a.Data()
	if s, ok := d.(*structData); ok {
		x, _ := s.ptr.(T)
		return x
	}
	x, _ := d.(T)
	return x
}

// structType is a declared struct type.
type structType struct{ node *dataNode }

// structData is the AgentData of one tagged struct value.
type structData struct {
	ptr any // the *T, as given
	p   unsafe.Pointer
	t   *structType
}

func (s *structData) Field(name string) Value {
	f := s.t.node.field(name)
	if f == nil {
		return Value{}
	}
	return f.node.get(unsafe.Add(s.p, f.off))
}

func (s *structData) SetField(name string, v Value) error {
	f := s.t.node.field(name)
	if f == nil {
		return fmt.Errorf("the agent's data (%s) has no field %q", s.t.node.typ, name)
	}
	return f.node.set(unsafe.Add(s.p, f.off), v, name)
}

// nodeKind is what a declared Go type is, for reading and writing it.
type nodeKind uint8

const (
	nodeBool nodeKind = iota
	nodeInt
	nodeUint
	nodeFloat
	nodeString
	nodeStruct
	nodeList // a slice or an array
	nodeMap
)

// dataNode is a declared type: how to read and write a value of it.
type dataNode struct {
	kind   nodeKind
	typ    reflect.Type
	size   uintptr        // the Go type's size (a number's: 1, 2, 4 or 8)
	fields []dataField    // a struct's tagged fields, in declaration order
	byName map[string]int // the fields' indices, for a struct of many
	elem   *dataNode      // a list's elements, a map's values
	key    *dataNode      // a map's keys: a string or integer node
	alen   int            // an array's length; -1 for a slice
}

type dataField struct {
	name string
	off  uintptr
	goi  int // the field's index in the struct, for reflection
	node *dataNode
}

// field is the struct field named name: a short list is searched in
// order, a long one through byName.
func (n *dataNode) field(name string) *dataField {
	if n.byName != nil {
		if i, ok := n.byName[name]; ok {
			return &n.fields[i]
		}
		return nil
	}
	for i := range n.fields {
		if n.fields[i].name == name {
			return &n.fields[i]
		}
	}
	return nil
}

// dataDecl reads types into nodes.
type dataDecl struct {
	open map[reflect.Type]bool // struct types on the path: a type that holds itself
}

func (d *dataDecl) node(t reflect.Type, where string, depth int) (*dataNode, error) {
	if depth >= MaxDataDepth {
		return nil, fmt.Errorf("%w: agent data field %s nests tables more than %d deep", ErrParamDecl, where, MaxDataDepth)
	}
	n := &dataNode{typ: t, size: t.Size()}
	switch t.Kind() {
	case reflect.Bool:
		n.kind = nodeBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n.kind = nodeInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n.kind = nodeUint
	case reflect.Float32, reflect.Float64:
		n.kind = nodeFloat
	case reflect.String:
		n.kind = nodeString
	case reflect.Slice, reflect.Array:
		n.kind, n.alen = nodeList, -1
		if t.Kind() == reflect.Array {
			n.alen = t.Len()
		}
		e, err := d.node(t.Elem(), where+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		n.elem = e
	case reflect.Map:
		n.kind = nodeMap
		switch t.Key().Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil, fmt.Errorf("%w: agent data field %s is a map with %s keys; keys are strings or integers", ErrParamDecl, where, t.Key())
		}
		k, err := d.node(t.Key(), where+" key", depth+1)
		if err != nil {
			return nil, err
		}
		e, err := d.node(t.Elem(), where+"[]", depth+1)
		if err != nil {
			return nil, err
		}
		n.key, n.elem = k, e
	case reflect.Struct:
		if err := d.structNode(n, t, where, depth); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: agent data field %s is a %s; agent data holds numbers, booleans, strings, and structs, slices, arrays and maps of those (leave the field untagged to keep it from the trees)", ErrParamDecl, where, t)
	}
	return n, nil
}

func (d *dataDecl) structNode(n *dataNode, t reflect.Type, where string, depth int) error {
	if d.open[t] {
		return fmt.Errorf("%w: agent data field %s holds its own type %s: agent data is a tree of values, not a graph", ErrParamDecl, where, t)
	}
	d.open[t] = true
	defer delete(d.open, t)
	n.kind = nodeStruct
	for i := range t.NumField() {
		f := t.Field(i)
		name, ok := f.Tag.Lookup("bt")
		if !ok || name == "-" {
			continue
		}
		at := where + "." + f.Name
		switch {
		case !f.IsExported():
			return fmt.Errorf("%w: agent data field %s has a bt tag but is not exported", ErrParamDecl, at)
		case name == "":
			return fmt.Errorf("%w: agent data field %s has an empty bt tag", ErrParamDecl, at)
		case n.field(name) != nil:
			return fmt.Errorf("%w: two fields of %s are tagged bt:%q", ErrParamDecl, t, name)
		}
		fn, err := d.node(f.Type, at, depth+1)
		if err != nil {
			return err
		}
		n.fields = append(n.fields, dataField{name: name, off: f.Offset, goi: i, node: fn})
	}
	if len(n.fields) == 0 {
		return fmt.Errorf("%w: agent data type %s (at %s) has no field with a bt tag", ErrParamDecl, t, where)
	}
	if len(n.fields) > 8 {
		n.byName = make(map[string]int, len(n.fields))
		for i, f := range n.fields {
			n.byName[f.name] = i
		}
	}
	return nil
}

// get reads the value of n's type at p: scalars at their offsets, a
// struct's fields and a list's elements by their offsets and sizes, read
// once by DeclareData; only a map is walked by reflection (Go has no other
// way to range over a map whose type a program gives at run time).
func (n *dataNode) get(p unsafe.Pointer) Value {
	switch n.kind {
	case nodeBool:
		return Bool(*(*bool)(p))
	case nodeInt:
		return Number(float64(readInt(p, n.size)))
	case nodeUint:
		return Number(float64(readUint(p, n.size)))
	case nodeFloat:
		if n.size == 4 {
			return Number(float64(*(*float32)(p)))
		}
		return Number(*(*float64)(p))
	case nodeString:
		return String(*(*string)(p))
	case nodeStruct:
		out := Value{Kind: TableValue, Table: make([]Field, len(n.fields))}
		for i := range n.fields {
			f := &n.fields[i]
			out.Table[i] = Field{String(f.name), f.node.get(unsafe.Add(p, f.off))}
		}
		return out
	case nodeList:
		base, size := p, n.alen
		if size < 0 {
			h := (*sliceHeader)(p)
			base, size = h.data, h.len
		}
		out := Value{Kind: TableValue, Table: make([]Field, size)}
		for i := range size {
			out.Table[i] = Field{Number(float64(i + 1)), n.elem.get(unsafe.Add(base, uintptr(i)*n.elem.size))}
		}
		return out
	}
	return n.table(reflect.NewAt(n.typ, p).Elem())
}

// sliceHeader is how a slice is laid out: what get reads a slice of a type
// known at run time by.
type sliceHeader struct {
	data     unsafe.Pointer
	len, cap int
}

// set writes v into the value of n's type at p; path names the value for
// the error.
func (n *dataNode) set(p unsafe.Pointer, v Value, path string) error {
	switch n.kind {
	case nodeBool:
		if v.Kind != BoolValue {
			return n.mismatch(v, path)
		}
		*(*bool)(p) = v.Bool
		return nil
	case nodeInt:
		x, err := n.integer(v, path)
		if err == nil {
			writeInt(p, n.size, x)
		}
		return err
	case nodeUint:
		x, err := n.integer(v, path)
		if err == nil {
			writeUint(p, n.size, uint64(x))
		}
		return err
	case nodeFloat:
		if v.Kind != NumberValue {
			return n.mismatch(v, path)
		}
		if n.size == 4 {
			*(*float32)(p) = float32(v.Num)
		} else {
			*(*float64)(p) = v.Num
		}
		return nil
	case nodeString:
		if v.Kind != StringValue {
			return n.mismatch(v, path)
		}
		*(*string)(p) = v.Str
		return nil
	}
	return n.setTable(reflect.NewAt(n.typ, p).Elem(), v, path)
}

// integer is v as an integer that fits n's type.
func (n *dataNode) integer(v Value, path string) (int64, error) {
	if v.Kind != NumberValue {
		return 0, n.mismatch(v, path)
	}
	x, bits := v.Num, int(8*n.size)
	lo, hi := -math.Ldexp(1, bits-1), math.Ldexp(1, bits-1)
	if n.kind == nodeUint {
		lo, hi = 0, math.Ldexp(1, bits)
	}
	lo, hi = max(lo, -maxDataKey), min(hi, maxDataKey+1) // numbers are exact up to 2^53
	if x != math.Trunc(x) || x < lo || x >= hi {
		return 0, fmt.Errorf("%s: %v does not fit a %s", path, x, n.typ)
	}
	return int64(x), nil
}

func (n *dataNode) mismatch(v Value, path string) error {
	want := "a table"
	switch n.kind {
	case nodeBool:
		want = "a boolean"
	case nodeInt, nodeUint, nodeFloat:
		want = "a number"
	case nodeString:
		want = "a string"
	}
	return fmt.Errorf("%s is %s (%s), not %s", path, want, n.typ, valueKindText(v))
}

func valueKindText(v Value) string {
	if v.Kind == NilValue {
		return "nil"
	}
	return "a " + kindName(v.Kind)
}

func readInt(p unsafe.Pointer, size uintptr) int64 {
	switch size {
	case 1:
		return int64(*(*int8)(p))
	case 2:
		return int64(*(*int16)(p))
	case 4:
		return int64(*(*int32)(p))
	}
	return *(*int64)(p)
}

func readUint(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

func writeInt(p unsafe.Pointer, size uintptr, x int64) {
	switch size {
	case 1:
		*(*int8)(p) = int8(x)
	case 2:
		*(*int16)(p) = int16(x)
	case 4:
		*(*int32)(p) = int32(x)
	default:
		*(*int64)(p) = x
	}
}

func writeUint(p unsafe.Pointer, size uintptr, x uint64) {
	switch size {
	case 1:
		*(*uint8)(p) = uint8(x)
	case 2:
		*(*uint16)(p) = uint16(x)
	case 4:
		*(*uint32)(p) = uint32(x)
	default:
		*(*uint64)(p) = x
	}
}
