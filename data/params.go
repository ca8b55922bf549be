package data

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/probably-submodular/crf/psub"
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
		type entry struct {
			key string
			val reflect.Value
		}
		var es []entry
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
			es = append(es, entry{kb.String(), it.Value()})
		}
		sort.Slice(es, func(i, j int) bool { return es[i].key < es[j].key })
		b.WriteByte('{')
		for i, e := range es {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, e.key)
			b.WriteByte(':')
			if err := writeCanonical(b, e.val, path+"."+e.key, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case reflect.Struct:
		type field struct {
			name string
			val  reflect.Value
		}
		var fs []field
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
			fs = append(fs, field{name, v.Field(i)})
		}
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].name < fs[j].name })
		b.WriteByte('{')
		for i, f := range fs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, f.name)
			b.WriteByte(':')
			if err := writeCanonical(b, f.val, path+"."+f.name, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("%s: a %s is not a setting", path, t)
	}
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
			keys := map[string]bool{}
			for k := range mx {
				keys[k] = true
			}
			for k := range my {
				keys[k] = true
			}
			sorted := make([]string, 0, len(keys))
			for k := range keys {
				sorted = append(sorted, k)
			}
			sort.Strings(sorted)
			for _, k := range sorted {
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

// InstancesDigest is a short hash of instances' content (name, labels,
// unary and pairwise features, edges), for the params of results that
// depend on the data: the same data set read from other files, or built
// otherwise, gives another digest.
func InstancesDigest(sets ...[]psub.Instance) string {
	h := sha256.New()
	var buf []byte // one row at a time: a whole EM volume is ~1 GB of features
	num := func(x uint64) { buf = binary.LittleEndian.AppendUint64(buf, x) }
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	rows := func(m [][]float64) {
		num(uint64(len(m)))
		for _, r := range m {
			num(uint64(len(r)))
			for _, v := range r {
				num(math.Float64bits(v))
			}
			flush()
		}
	}
	for _, set := range sets {
		num(uint64(len(set)))
		for _, in := range set {
			num(uint64(len(in.Name)))
			buf = append(buf, in.Name...)
			num(uint64(len(in.Labels)))
			for _, l := range in.Labels {
				num(uint64(int64(l)))
			}
			num(uint64(len(in.Edges)))
			for _, e := range in.Edges {
				num(uint64(int64(e[0])))
				num(uint64(int64(e[1])))
			}
			flush()
			rows(in.Unary)
			rows(in.Pairwise)
		}
	}
	flush()
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// SegmentationParams is what the results of a SegmentationExperiment depend
// on besides the job: its settings and a digest of its images and folds.
// Workers, ModelDir and Checkpoints change where and how fast, not what.
type SegmentationParams struct {
	HoldOut   float64
	Selection []int
	Seed      uint64
	Tol       float64
	MaxIter   int
	Delayed   bool
	AddK      int
	PyStructC bool
	Data      string // InstancesDigest of the items
	Folds     string // digest of the fold assignment
}

// Params returns e's SegmentationParams, for GridOptions.Params.
func (e *SegmentationExperiment) Params() SegmentationParams {
	items := make([]psub.Instance, len(e.Items))
	for i, it := range e.Items {
		items[i] = it.Instance
	}
	folds, _ := json.Marshal(e.Folds) // a []Fold of ints always marshals
	sum := sha256.Sum256(folds)
	return SegmentationParams{HoldOut: e.HoldOut, Selection: e.Selection, Seed: e.Seed, Tol: e.Tol, MaxIter: e.MaxIter,
		Delayed: e.Delayed, AddK: e.AddK, PyStructC: e.PyStructC,
		Data: InstancesDigest(items), Folds: hex.EncodeToString(sum[:])[:16]}
}

// MultiLabelParams is what the results of a MultiLabelExperiment on one data
// set depend on besides the job. Workers, Checkpoints and Progress change
// how, not what.
type MultiLabelParams struct {
	Tol     float64
	MaxIter int
	Delayed bool
	AddK    int
	Data    string // InstancesDigest of the training and test graphs
}

// Params returns e's MultiLabelParams for the problem named dataset (Data
// is "" when e has no such problem).
func (e *MultiLabelExperiment) Params(dataset string) MultiLabelParams {
	p := MultiLabelParams{Tol: e.Tol, MaxIter: e.MaxIter, Delayed: e.Delayed, AddK: e.AddK}
	if pr := e.Problems[dataset]; pr != nil {
		p.Data = InstancesDigest(pr.Train, pr.Test)
	}
	return p
}
