package sdk

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// TestBatch_aPanicFailsItsCallOnly: calls that panic in the middle of a
// batch (run with one recover for a range of calls) get the panic as their
// error, and the calls after them, on other sites and of other kinds, run
// as they would have.
func TestBatch_aPanicFailsItsCallOnly(t *testing.T) {
	d, _ := newDispatcher(counter())
	b := &Batch{Sites: []Site{{Name: "count", Rule: "r"}, {Name: "panics", Rule: "r"}, {Name: "big", Rule: "r"}}}
	sites := []uint32{0, 1, 1, 0, 2, 1, 0}
	for i, s := range sites {
		kind := KindAction
		if s == 2 {
			kind = KindCondition
		}
		b.Calls = append(b.Calls, Request{Kind: kind, Site: s, Agent: "a", Fields: []Value{{Kind: ValueNumber, Num: float64(10 * i)}}})
	}
	out, err := d.RunBatch(context.Background(), b, nil)
	if err != nil || len(out) != len(sites) {
		t.Fatal(len(out), err)
	}
	for i, s := range sites {
		r := out[i]
		switch s {
		case 0:
			if r.Err != "" || r.Status != Running || len(r.Writes) != 2 || r.Writes[0].Num != float64(10*i+1) {
				t.Errorf("call %d (count): %+v", i, r)
			}
		case 1:
			if !strings.Contains(r.Err, `action "panics" panicked: boom`) || len(r.Writes) != 0 {
				t.Errorf("call %d (panics): %+v", i, r)
			}
		case 2:
			if r.Err != "" || !r.OK {
				t.Errorf("call %d (big): %+v", i, r)
			}
		}
	}
}

// TestCall_resetClearsEveryField: a Call reused for the next call of a
// batch (Call.reset) keeps nothing of the call before but its storage: a
// field added to Call and not to reset fails here.
func TestCall_resetClearsEveryField(t *testing.T) {
	var c Call
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem() // unexported fields too
		switch f.Kind() {
		case reflect.String:
			f.SetString("x")
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Float64:
			f.SetFloat(1)
		case reflect.Uint8, reflect.Uint32, reflect.Int, reflect.Int32:
			if f.CanInt() {
				f.SetInt(1)
			} else {
				f.SetUint(1)
			}
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		default:
			t.Fatalf("field %s of kind %s: teach this test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	c.reset(&Request{}, &Site{})
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		if name == "outBuf" || name == "fieldsBuf" { // storage kept on purpose
			continue
		}
		if !v.Field(i).IsZero() {
			t.Errorf("field %s is kept from the call before", name)
		}
	}
}
