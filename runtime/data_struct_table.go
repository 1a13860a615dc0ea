package runtime

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
)

// Table-valued fields of tagged struct data (data_struct.go): a struct,
// slice, array or map read as a table Value and written from one. These
// build values, so they use reflection; a scalar field never comes here.
//
// A struct reads as a table of its tagged fields in declaration order, a
// list as the keys 1, 2, ..., a map with its keys sorted, so that equal
// data is an equal table and saves the same bytes. A write is all or
// nothing: the new value is built aside and stored once it is whole. A
// struct's fields the table lacks become their zero value; a key the
// struct has no field for, a list with holes, a key of the wrong kind or a
// value that does not fit is an error naming its path (pos.x, loot[3]).

// table is the table Value of rv, a value of n's struct, list or map type.
func (n *dataNode) table(rv reflect.Value) Value {
	switch n.kind {
	case nodeStruct:
		out := Value{Kind: TableValue, Table: make([]Field, len(n.fields))}
		for i, f := range n.fields {
			out.Table[i] = Field{String(f.name), f.node.valueOf(rv.Field(f.goi))}
		}
		return out
	case nodeList:
		out := Value{Kind: TableValue, Table: make([]Field, rv.Len())}
		for i := range out.Table {
			out.Table[i] = Field{Number(float64(i + 1)), n.elem.valueOf(rv.Index(i))}
		}
		return out
	}
	out := Value{Kind: TableValue, Table: make([]Field, 0, rv.Len())}
	for it := rv.MapRange(); it.Next(); {
		out.Table = append(out.Table, Field{n.key.valueOf(it.Key()), n.elem.valueOf(it.Value())})
	}
	slices.SortFunc(out.Table, func(a, b Field) int {
		if a.Key.Kind == StringValue {
			return cmp.Compare(a.Key.Str, b.Key.Str)
		}
		return cmp.Compare(a.Key.Num, b.Key.Num)
	})
	return out
}

// valueOf is the Value of rv, of n's type (read by reflection: a map's
// values cannot be addressed).
func (n *dataNode) valueOf(rv reflect.Value) Value {
	switch n.kind {
	case nodeBool:
		return Bool(rv.Bool())
	case nodeInt:
		return Number(float64(rv.Int()))
	case nodeUint:
		return Number(float64(rv.Uint()))
	case nodeFloat:
		return Number(rv.Float())
	case nodeString:
		return String(rv.String())
	}
	return n.table(rv)
}

// setValue sets rv (settable, of n's type) to v.
func (n *dataNode) setValue(rv reflect.Value, v Value, path string) error {
	switch n.kind {
	case nodeBool:
		if v.Kind != BoolValue {
			return n.mismatch(v, path)
		}
		rv.SetBool(v.Bool)
	case nodeInt:
		x, err := n.integer(v, path)
		if err != nil {
			return err
		}
		rv.SetInt(x)
	case nodeUint:
		x, err := n.integer(v, path)
		if err != nil {
			return err
		}
		rv.SetUint(uint64(x))
	case nodeFloat:
		if v.Kind != NumberValue {
			return n.mismatch(v, path)
		}
		rv.SetFloat(v.Num)
	case nodeString:
		if v.Kind != StringValue {
			return n.mismatch(v, path)
		}
		rv.SetString(v.Str)
	default:
		return n.setTable(rv, v, path)
	}
	return nil
}

// setTable sets rv, of n's struct, list or map type, to the table v.
func (n *dataNode) setTable(rv reflect.Value, v Value, path string) error {
	if v.Kind != TableValue {
		return n.mismatch(v, path)
	}
	var nv reflect.Value
	var err error
	switch n.kind {
	case nodeStruct:
		nv, err = n.newStruct(v, path)
	case nodeList:
		nv, err = n.newList(v, path)
	default:
		nv, err = n.newMap(v, path)
	}
	if err != nil {
		return err
	}
	rv.Set(nv)
	return nil
}

func (n *dataNode) newStruct(v Value, path string) (reflect.Value, error) {
	out := reflect.New(n.typ).Elem()
	for _, e := range v.Table {
		var f *dataField
		if e.Key.Kind == StringValue {
			f = n.field(e.Key.Str)
		}
		if f == nil {
			return reflect.Value{}, fmt.Errorf("%s: %s has no field %s", path, n.typ, KeyText(e.Key))
		}
		if err := f.node.setValue(out.Field(f.goi), e.Val, DataPath(path, e.Key)); err != nil {
			return reflect.Value{}, err
		}
	}
	return out, nil
}

func (n *dataNode) newList(v Value, path string) (reflect.Value, error) {
	size := len(v.Table)
	var out reflect.Value
	if n.typ.Kind() == reflect.Array {
		if size != n.typ.Len() {
			return reflect.Value{}, fmt.Errorf("%s: a table of %d entries for %s, which holds %d", path, size, n.typ, n.typ.Len())
		}
		out = reflect.New(n.typ).Elem()
	} else {
		out = reflect.MakeSlice(n.typ, size, size)
	}
	seen := make([]bool, size)
	for _, e := range v.Table {
		i := -1
		if e.Key.Kind == NumberValue && e.Key.Num >= 1 && e.Key.Num <= float64(size) && e.Key.Num == float64(int(e.Key.Num)) {
			i = int(e.Key.Num) - 1
		}
		if i < 0 || seen[i] {
			return reflect.Value{}, fmt.Errorf("%s: key %s in a table for %s, whose keys are 1 to its length without holes", path, KeyText(e.Key), n.typ)
		}
		seen[i] = true
		if err := n.elem.setValue(out.Index(i), e.Val, DataPath(path, e.Key)); err != nil {
			return reflect.Value{}, err
		}
	}
	return out, nil
}

func (n *dataNode) newMap(v Value, path string) (reflect.Value, error) {
	out := reflect.MakeMapWithSize(n.typ, len(v.Table))
	for _, e := range v.Table {
		at := DataPath(path, e.Key)
		k := reflect.New(n.typ.Key()).Elem()
		if err := n.key.setValue(k, e.Key, at+" (key)"); err != nil {
			return reflect.Value{}, err
		}
		x := reflect.New(n.typ.Elem()).Elem()
		if err := n.elem.setValue(x, e.Val, at); err != nil {
			return reflect.Value{}, err
		}
		out.SetMapIndex(k, x)
	}
	return out, nil
}
