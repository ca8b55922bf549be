package grid

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ParamsKey returns the canonical text of v, the settings a stored result
// depends on besides its key: JSON with every object's keys sorted, so the
// same settings give the same text in every run, whatever the order of
// struct fields or map iteration. Any change of a field gives another text.
//
//   - Structs contribute their exported fields (named as in JSON: a json
//     tag's name, and no field tagged "-"); func and chan fields are left out
//     (callbacks are not settings).
//   - A value held in an interface (a psub.ConstraintSet, a Loss, an any)
//     is written {"<type>": value} when its type is named, so psub.C2{} and
//     psub.C4{}, both empty structs, differ.
//   - Floats are written in the shortest form that reads back the same
//     bits; NaN and ±Inf as the strings "NaN", "+Inf", "-Inf".
//   - A nil slice or map is written as an empty one; pointers are followed; types with a MarshalJSON or MarshalText method
//     are written as those give them (time.Time, for instance).
//
// Top-level v must not be nil, a func or a chan. Cycles are an error.
func ParamsKey(v any) (string, error) {
	if v == nil {
		return "", fmt.Errorf("params: nil")
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, reflect.ValueOf(v), "params", 0); err != nil {
		return "", err
	}
	return b.String(), nil
}

// maxParamsDepth bounds nesting, so a pointer cycle is an error.
const maxParamsDepth = 64

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

func skippedKind(k reflect.Kind) bool {
	return k == reflect.Func || k == reflect.Chan || k == reflect.UnsafePointer
}

func writeCanonical(b *bytes.Buffer, v reflect.Value, path string, depth int) error {
	if depth > maxParamsDepth {
		return fmt.Errorf("%s: nested more than %d levels (a cycle?)", path, maxParamsDepth)
	}
	if !v.IsValid() {
		b.WriteString("null")
		return nil
	}
	t := v.Type()
	if skippedKind(t.Kind()) {
		return fmt.Errorf("%s: a %s is not a setting", path, t)
	}
	if (t.Kind() == reflect.Pointer || t.Kind() == reflect.Interface) && v.IsNil() {
		b.WriteString("null")
		return nil
	}
	if t.Kind() != reflect.Interface && t.Kind() != reflect.Pointer {
		if t.Implements(jsonMarshaler) {
			raw, err := v.Interface().(json.Marshaler).MarshalJSON()
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			var x any
			if err := dec.Decode(&x); err != nil {
				return fmt.Errorf("%s: MarshalJSON: %w", path, err)
			}
			return writeCanonical(b, reflect.ValueOf(x), path, depth+1)
		}
		if t.Implements(textMarshaler) {
			text, err := v.Interface().(encoding.TextMarshaler).MarshalText()
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			writeString(b, string(text))
			return nil
		}
	}
	switch t.Kind() {
	case reflect.Interface:
		e := v.Elem()
		if name := typeName(e.Type()); name != "" {
			b.WriteByte('{')
			writeString(b, name)
			b.WriteByte(':')
			if err := writeCanonical(b, e, path, depth+1); err != nil {
				return err
			}
			b.WriteByte('}')
			return nil
		}
		return writeCanonical(b, e, path, depth+1)
	case reflect.Pointer:
		return writeCanonical(b, v.Elem(), path, depth+1)
	case reflect.Bool:
		b.WriteString(strconv.FormatBool(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		b.WriteString(strconv.FormatUint(v.Uint(), 10))
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsNaN(f):
			b.WriteString(`"NaN"`)
		case math.IsInf(f, 1):
			b.WriteString(`"+Inf"`)
		case math.IsInf(f, -1):
			b.WriteString(`"-Inf"`)
		default:
			b.WriteString(strconv.FormatFloat(f, 'g', -1, t.Bits()))
		}
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		fmt.Fprintf(b, `[%s,%s]`, strconv.FormatFloat(real(c), 'g', -1, 64), strconv.FormatFloat(imag(c), 'g', -1, 64))
	case reflect.String:
		if n, ok := v.Interface().(json.Number); ok {
			b.WriteString(n.String())
			return nil
		}
		writeString(b, v.String())
	case reflect.Slice, reflect.Array:
		b.WriteByte('[')
		for i := range v.Len() {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case reflect.Map:
		var ms []member
		for it := v.MapRange(); it.Next(); {
			var kb bytes.Buffer
			k := it.Key()
			if k.Kind() == reflect.String {
				kb.WriteString(k.String())
			} else if err := writeCanonical(&kb, k, path+"{key}", depth+1); err != nil {
				return err
			}
			if skippedKind(it.Value().Kind()) {
				continue
			}
			ms = append(ms, member{kb.String(), it.Value()})
		}
		return writeObject(b, ms, path, depth)
	case reflect.Struct:
		var ms []member
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() || skippedKind(sf.Type.Kind()) {
				continue
			}
			name := sf.Name
			if tag, ok := sf.Tag.Lookup("json"); ok {
				n, _, _ := strings.Cut(tag, ",")
				if n == "-" && !strings.HasPrefix(tag, "-,") {
					continue
				}
				if n != "" {
					name = n
				}
			}
			ms = append(ms, member{name, v.Field(i)})
		}
		return writeObject(b, ms, path, depth)
	default:
		return fmt.Errorf("%s: a %s is not a setting", path, t)
	}
	return nil
}

// member is a map entry or a struct field, keyed by its canonical text or
// its JSON name.
type member struct {
	key string
	val reflect.Value
}

// writeObject writes members as a JSON object in key order.
func writeObject(b *bytes.Buffer, ms []member, path string, depth int) error {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, m.key)
		b.WriteByte(':')
		if err := writeCanonical(b, m.val, path+"."+m.key, depth+1); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// typeName names a named type ("psub.C4", "*psub.C4"), or "" for an
// unnamed or predeclared one (float64, []int, map[string]any).
func typeName(t reflect.Type) string {
	prefix := ""
	for t.Kind() == reflect.Pointer {
		prefix += "*"
		t = t.Elem()
	}
	if t.Name() == "" || t.PkgPath() == "" || t == reflect.TypeFor[json.Number]() {
		return ""
	}
	return prefix + t.String()
}

func writeString(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always marshals
	b.Write(q)
}

// paramsDiff names where two params keys differ: the paths (a.b.c) of at
// most max differing values, "…" when there are more. Keys that are not
// JSON are compared whole.
func paramsDiff(a, b string, max int) []string {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		if a == b {
			return nil
		}
		return []string{"(whole)"}
	}
	var out []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		if len(out) > max {
			return
		}
		mx, okx := x.(map[string]any)
		my, oky := y.(map[string]any)
		if okx && oky {
			keys := maps.Clone(mx) // with my's keys: the union
			maps.Copy(keys, my)
			for _, k := range slices.Sorted(maps.Keys(keys)) {
				p := k
				if path != "" {
					p = path + "." + k
				}
				walk(p, mx[k], my[k])
			}
			return
		}
		if !reflect.DeepEqual(x, y) {
			if path == "" {
				path = "(whole)"
			}
			out = append(out, path)
		}
	}
	walk("", x, y)
	if len(out) > max {
		out = append(out[:max], "…")
	}
	return out
}
