package grid

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/qp"
)

type paramsInner struct {
	N    int
	Name string
}

// paramsAll has a field of every kind ParamsKey handles.
type paramsAll struct {
	Int      int
	Uint     uint64
	Float    float64
	Bool     bool
	Str      string
	Floats   []float64
	Arr      [2]int
	Map      map[string]int
	IntMap   map[int]string
	Inner    paramsInner
	Ptr      *paramsInner
	Set      psub.ConstraintSet
	Any      any
	Tagged   int `json:"renamed"`
	When     time.Time
	Callback func() // not a setting: left out
}

func TestParamsKeyCanonical(t *testing.T) {
	// The text is sorted-key JSON, independent of field and insertion order.
	type a struct {
		B int
		A string
		M map[string]int
	}
	type b struct {
		M map[string]int
		A string
		B int
	}
	m1, m2 := map[string]int{}, map[string]int{}
	for i := range 50 {
		m1[fmt.Sprint("k", i)] = i
		m2[fmt.Sprint("k", 49-i)] = 49 - i
	}
	k1, err := ParamsKey(a{B: 1, A: "x", M: m1})
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := ParamsKey(b{M: m2, A: "x", B: 1})
	if k1 != k2 {
		t.Fatalf("field or map order changed the key:\n%s\n%s", k1, k2)
	}
	for range 20 {
		if k, _ := ParamsKey(a{B: 1, A: "x", M: m1}); k != k1 {
			t.Fatal("the key of one value changed between calls")
		}
	}
	got, _ := ParamsKey(a{B: 1, A: "x<", M: map[string]int{"z": 2, "b": 1}})
	if want := `{"A":"x\u003c","B":1,"M":{"b":1,"z":2}}`; got != want {
		t.Fatalf("key %s, want %s", got, want)
	}
	if !json.Valid([]byte(k1)) {
		t.Fatalf("not JSON: %s", k1)
	}
	// Nil and empty slices and maps are the same setting.
	ka, _ := ParamsKey(a{})
	kb, _ := ParamsKey(a{M: map[string]int{}})
	if ka != kb {
		t.Fatalf("nil and empty map differ: %s %s", ka, kb)
	}
}

func TestParamsKeyChangesWithEveryField(t *testing.T) {
	base := paramsAll{Int: 1, Uint: 2, Float: 0.5, Str: "s", Floats: []float64{1, 2}, Arr: [2]int{1, 2},
		Map: map[string]int{"a": 1}, IntMap: map[int]string{1: "a"}, Inner: paramsInner{1, "n"}, Ptr: &paramsInner{2, "p"},
		Set: psub.C2{}, Any: 3.5, Tagged: 1, When: time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)}
	k0, err := ParamsKey(base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(k0, `"renamed":1`) || strings.Contains(k0, "Callback") || !strings.Contains(k0, `{"psub.C2":{}}`) {
		t.Fatalf("key %s: want the json name, no func, the interface's type", k0)
	}
	changes := map[string]func(*paramsAll){
		"Int":         func(p *paramsAll) { p.Int = 2 },
		"Uint":        func(p *paramsAll) { p.Uint = 3 },
		"Float":       func(p *paramsAll) { p.Float = math.Nextafter(0.5, 1) },
		"Bool":        func(p *paramsAll) { p.Bool = true },
		"Str":         func(p *paramsAll) { p.Str = "t" },
		"Floats":      func(p *paramsAll) { p.Floats = []float64{1, 2, 3} },
		"Floats elem": func(p *paramsAll) { p.Floats = []float64{2, 1} },
		"Arr":         func(p *paramsAll) { p.Arr[1] = 3 },
		"Map":         func(p *paramsAll) { p.Map = map[string]int{"a": 2} },
		"Map key":     func(p *paramsAll) { p.Map = map[string]int{"b": 1} },
		"IntMap":      func(p *paramsAll) { p.IntMap = map[int]string{2: "a"} },
		"Inner":       func(p *paramsAll) { p.Inner.Name = "m" },
		"Ptr":         func(p *paramsAll) { p.Ptr = &paramsInner{3, "p"} },
		"Ptr nil":     func(p *paramsAll) { p.Ptr = nil },
		"Set":         func(p *paramsAll) { p.Set = psub.C4{} },
		"Set nil":     func(p *paramsAll) { p.Set = nil },
		"Any":         func(p *paramsAll) { p.Any = "3.5" },
		"Tagged":      func(p *paramsAll) { p.Tagged = 2 },
		"When":        func(p *paramsAll) { p.When = p.When.Add(time.Second) },
	}
	seen := map[string]string{k0: "base"}
	for name, change := range changes {
		p := base
		p.Floats = append([]float64{}, base.Floats...)
		change(&p)
		k, err := ParamsKey(p)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if other, dup := seen[k]; dup {
			t.Errorf("changing %s gives the key of %s: %s", name, other, k)
		}
		seen[k] = name
	}
	// A callback does not change the key.
	p := base
	p.Callback = func() {}
	if k, _ := ParamsKey(p); k != k0 {
		t.Error("a func field changed the key")
	}
}

// TestParamsKeyLearnerSettings: every field of psub.Settings a notebook may
// set, and of its Tuning, changes the key (checked by reflection, so a new
// field is covered), and the constraint set's type counts although C2{} and
// C4{} are both empty structs.
func TestParamsKeyLearnerSettings(t *testing.T) {
	base := psub.Settings{Set: psub.C2{}}
	k0, err := ParamsKey(base)
	if err != nil {
		t.Fatal(err)
	}
	var walk func(typ reflect.Type, index []int)
	walk = func(typ reflect.Type, index []int) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			idx := append(slices.Clone(index), i)
			s := base
			v := reflect.ValueOf(&s).Elem().FieldByIndex(idx)
			switch f.Type.Kind() {
			case reflect.Func:
				continue
			case reflect.Int, reflect.Int64:
				v.SetInt(7)
			case reflect.Float64:
				v.SetFloat(0.25)
			case reflect.Bool:
				v.SetBool(true)
			case reflect.String:
				v.SetString("x")
			case reflect.Interface:
				switch f.Name {
				case "Set":
					v.Set(reflect.ValueOf(psub.ConstraintSet(psub.C4{})))
				case "Loss":
					v.Set(reflect.ValueOf(psub.Loss(psub.ClassAveraged{})))
				default: // inference methods: any value of the interface differs from nil
					continue
				}
			case reflect.Pointer: // Warm
				v.Set(reflect.ValueOf(&psub.WorkingSet{C: 2}))
			case reflect.Slice: // WarmInstances
				v.Set(reflect.ValueOf([]int{1}))
			case reflect.Struct:
				switch f.Type {
				case reflect.TypeFor[qp.Options]():
					v.Set(reflect.ValueOf(qp.Options{Tol: 1e-9}))
				case reflect.TypeFor[psub.Tuning]():
					walk(f.Type, idx)
					continue
				default:
					t.Fatalf("field %s of type %s: extend this test", f.Name, f.Type)
				}
			default:
				t.Fatalf("field %s of kind %s: extend this test", f.Name, f.Type.Kind())
			}
			k, err := ParamsKey(s)
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			if k == k0 {
				t.Errorf("changing psub.Settings field %s does not change the key", f.Name)
			}
		}
	}
	walk(reflect.TypeFor[psub.Settings](), nil)
}

func TestParamsKeyEdgeCases(t *testing.T) {
	nan, _ := ParamsKey(struct{ X float64 }{math.NaN()})
	inf, _ := ParamsKey(struct{ X float64 }{math.Inf(1)})
	if nan != `{"X":"NaN"}` || inf != `{"X":"+Inf"}` {
		t.Fatalf("NaN %s, Inf %s", nan, inf)
	}
	k1, _ := ParamsKey(map[string]any{"n": 1})
	k2, _ := ParamsKey(map[string]any{"n": 1.0})
	if k1 != k2 || k1 != `{"n":1}` {
		t.Fatalf("1 and 1.0 in an any: %s %s", k1, k2)
	}
	if _, err := ParamsKey(nil); err == nil {
		t.Error("nil accepted")
	}
	if _, err := ParamsKey(func() {}); err == nil {
		t.Error("a func accepted")
	}
	type node struct{ Next *node }
	n := &node{}
	n.Next = n
	if _, err := ParamsKey(n); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
}

func TestParamsDiff(t *testing.T) {
	a, _ := ParamsKey(paramsAll{Int: 1, Inner: paramsInner{1, "a"}})
	b, _ := ParamsKey(paramsAll{Int: 2, Inner: paramsInner{1, "b"}})
	if d := paramsDiff(a, b, 4); !reflect.DeepEqual(d, []string{"Inner.Name", "Int"}) {
		t.Fatalf("diff %v", d)
	}
	if d := paramsDiff(a, a, 4); d != nil {
		t.Fatalf("diff of equal keys %v", d)
	}
	if d := paramsDiff("tol=0.01", a, 4); !reflect.DeepEqual(d, []string{"(whole)"}) {
		t.Fatalf("diff with an old hand-typed key %v", d)
	}
}
