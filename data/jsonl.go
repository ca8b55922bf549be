package data

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/internal/jsontext"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub"
)

// maxReported bounds how many violations one read reports; the rest are
// counted.
const maxReported = 20

// maxCounted bounds how many bad lines one read goes through: a device
// such as /dev/urandom is an endless supply of them.
const maxCounted = 1000

// longLine is the length from which a line's growth is checked against
// the memory budget, and beyond which a line that does not start like a
// JSON object is not read further (/dev/zero has no end of line).
const longLine = 1 << 20

// jsonInstance is one line as written on disk. Pointers tell a missing field
// from an empty one; edges are decoded as []int so that a pair with the
// wrong arity is an error and not silently truncated or zero-filled.
type jsonInstance struct {
	Name     *string          `json:"name,omitempty"`
	Unary    *json.RawMessage `json:"unary"` // dense rows or sparse: decodeRows
	Edges    *[][]int         `json:"edges"`
	Pairwise *json.RawMessage `json:"pairwise"`
	Labels   *[]int           `json:"labels,omitempty"`
}

// ReadJSONL reads a graph data set in the JSON Lines format of
// data/FORMATS.md: one instance per line with fields "unary" (required),
// "edges" and "pairwise" (required, may be []), "labels" and "name"
// (optional). Blank lines are skipped; unknown fields are errors (they are
// usually typos). A feature matrix may be dense rows or a sparse object;
// either way it is returned sparse when that takes at most half the
// memory (psub.Instance.Compact), dense otherwise.
//
// labels is L, the number of labels: every label must lie in [0, L). Pass 0
// when L is not known yet (labels then only need to be ≥ 0; NumLabels gives
// 1 + the largest label seen).
//
// Every line is checked; the error lists each violation (up to 20) with its
// line number and field, and nothing is returned unless the whole file is
// valid. All lines must share the unary dimension of the first line and the
// pairwise dimension of the first line with edges.
func ReadJSONL(r io.Reader, labels int) ([]psub.Instance, error) {
	return readJSONL(r, "", labels)
}

// ReadJSONLFile is ReadJSONL on a file; messages start with "path:line:".
func ReadJSONLFile(path string, labels int) ([]psub.Instance, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readJSONL(f, path, labels)
}

type violations struct {
	where   string
	list    []string
	more    int
	stopped int // the line where reading stopped (maxCounted), or 0
}

func (v *violations) add(line int, format string, args ...any) {
	if len(v.list) >= maxReported {
		v.more++
		return
	}
	prefix := fmt.Sprintf("line %d: ", line)
	if v.where != "" {
		prefix = fmt.Sprintf("%s:%d: ", v.where, line)
	}
	v.list = append(v.list, prefix+fmt.Sprintf(format, args...))
}

func (v *violations) err() error {
	if len(v.list) == 0 {
		return nil
	}
	msg := strings.Join(v.list, "\n")
	if v.more > 0 {
		msg += fmt.Sprintf("\n... and %d more violation(s)", v.more)
	}
	if v.stopped > 0 {
		msg += fmt.Sprintf("; stopped reading at line %d", v.stopped)
	}
	return errors.New(msg)
}

func readJSONL(r io.Reader, where string, labels int) ([]psub.Instance, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	v := &violations{where: where}
	var set []psub.Instance
	du, dp := -1, -1
	for line := 1; ; line++ {
		if len(v.list)+v.more >= maxCounted {
			v.stopped = line
			break
		}
		b, rerr := readLine(br, line == 1)
		if errors.Is(rerr, errNotJSONLine) {
			v.add(line, "%v", rerr)
			break
		}
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("%s%s", prefixOf(where), lineErr(line, rerr))
		}
		if line == 1 {
			b = jsontext.TrimBOM(b)
		}
		if rerr == io.EOF && len(bytes.TrimSpace(b)) > 0 {
			// Every line of a whole file ends with a newline: a last line
			// without one is where an interrupted write stopped, even when
			// what it holds is a complete instance.
			v.add(line, "no newline at the end of the file: it may have been cut short by an interrupted write (every line of a complete file ends with a newline)")
		}
		if len(bytes.TrimSpace(b)) > 0 {
			in, ok := decodeLine(b, line, v)
			if ok {
				if du < 0 {
					du = in.UnaryDim()
				}
				if dp < 0 && len(in.Edges) > 0 {
					dp = in.PairwiseDim()
				}
				if err := in.Validate(len(set), du, dp, labelBound(labels)); err != nil {
					v.add(line, "%v", err)
				} else if labels <= 0 {
					if err := checkLabelBudget(&in, len(set), du, dp); err != nil {
						v.add(line, "%v", err)
					}
				}
				in.Compact()
				set = append(set, in)
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("%sno instances (empty file)", prefixOf(where))
	}
	return set, nil
}

var errNotJSONLine = errors.New("not JSON Lines")

// readLine reads one line as bufio.Reader.ReadBytes('\n') does, bounded:
// from longLine bytes on, a line that does not start like a JSON object
// (after white space, and a byte-order mark on the first line) is refused
// without reading on, and a longer line is checked against the memory
// budget as it grows (what decoding it takes: up to 8 bytes a byte).
func readLine(br *bufio.Reader, first bool) ([]byte, error) {
	var b []byte
	next := int64(longLine)
	for {
		chunk, err := br.ReadSlice('\n')
		b = append(b, chunk...)
		if err != bufio.ErrBufferFull {
			return b, err
		}
		if int64(len(b)) < next {
			continue
		}
		next *= 2
		head := bytes.TrimLeft(b, " \t\r\n")
		if first {
			head = jsontext.TrimBOM(head)
		}
		if len(head) > 0 && head[0] != '{' {
			return nil, fmt.Errorf("%w: a line of more than %d bytes starts with %q, not with a JSON object", errNotJSONLine, len(b), head[:min(len(head), 8)])
		}
		if err := membudget.Check(fmt.Sprintf("a line of more than %d bytes", len(b)), membudget.Bytes(int64(len(b)), 8)); err != nil {
			return nil, err
		}
	}
}

// lineErr names the line of an error of readLine.
func lineErr(line int, err error) string {
	var ex *membudget.ExceededError
	if errors.As(err, &ex) {
		return fmt.Sprintf("line %d: %v", line, err)
	}
	return fmt.Sprintf("read: %v", err)
}

func prefixOf(where string) string {
	if where == "" {
		return ""
	}
	return where + ": "
}

func labelBound(labels int) int {
	if labels <= 0 {
		return -1
	}
	return labels
}

// decodeLine parses one line and checks what psub.Instance.Validate cannot
// see: missing fields and the arity of edges.
func decodeLine(b []byte, line int, v *violations) (psub.Instance, bool) {
	if bytes.HasPrefix(b, jsontext.BOM) { // line 1's was skipped
		v.add(line, "%s", bomInside)
		return psub.Instance{}, false
	}
	if err := jsontext.CheckUTF8(b); err != nil {
		v.add(line, "%v", err)
		return psub.Instance{}, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var ji jsonInstance
	if err := dec.Decode(&ji); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te) && te.Field != "":
			v.add(line, "field %q: %s where %s expected", psub.Brief(te.Field, 40), psub.Brief(te.Value, 40), jsonExpected(te.Type))
		case errors.As(err, &te):
			v.add(line, "a JSON %s where one object {\"unary\": …} expected", psub.Brief(te.Value, 40))
		case errors.As(err, &se):
			msg := psub.Brief(strings.TrimPrefix(err.Error(), "json: "), 80)
			if h := jsontext.Hint(msg); h != "" {
				msg += " (" + h + ")"
			}
			v.add(line, "invalid JSON at byte %d: %s", se.Offset, msg)
		case errors.Is(err, io.ErrUnexpectedEOF):
			v.add(line, "invalid JSON: the line ends inside a value")
		default:
			// Unknown fields, mostly: the message quotes the field's name.
			v.add(line, "%s", psub.Brief(strings.TrimPrefix(err.Error(), "json: "), 120))
		}
		return psub.Instance{}, false
	}
	if dec.More() {
		v.add(line, "more than one JSON value on the line")
		return psub.Instance{}, false
	}
	ok := true
	for _, f := range []struct {
		name    string
		missing bool
	}{{"unary", ji.Unary == nil}, {"edges", ji.Edges == nil}, {"pairwise", ji.Pairwise == nil}} {
		if f.missing {
			v.add(line, "field %q: %s", f.name, missingField(f.name))
			ok = false
		}
	}
	if !ok {
		return psub.Instance{}, false
	}
	in := psub.Instance{Edges: make([][2]int, len(*ji.Edges))}
	var uok, pok bool
	in.Unary, in.UnarySparse, uok = decodeRows(*ji.Unary, "unary", line, v)
	in.Pairwise, in.PairwiseSparse, pok = decodeRows(*ji.Pairwise, "pairwise", line, v)
	if !uok || !pok {
		return psub.Instance{}, false
	}
	for e, pair := range *ji.Edges {
		if len(pair) != 2 {
			v.add(line, "field \"edges\": edge %d has %d node indices, expected 2", e, len(pair))
			ok = false
			continue
		}
		in.Edges[e] = [2]int{pair[0], pair[1]}
	}
	if ji.Name != nil {
		in.Name = *ji.Name
	}
	if ji.Labels != nil {
		in.Labels = *ji.Labels
	}
	return in, ok
}

// jsonExpected says in JSON's words what a field of Go type t takes (not
// Go's type names, which mean nothing to the writer of the file).
func jsonExpected(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a number (a float64: at most about 1.8e308)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer (written without a fraction or exponent)"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Pointer:
		return jsonExpected(t.Elem())
	}
	return "another value"
}

// NumLabels returns 1 + the largest label in the set (0 if unlabelled): L as
// data/FORMATS.md defines it when the user does not give it.
func NumLabels(set []psub.Instance) int {
	l := 0
	for i := range set {
		for _, y := range set[i].Labels {
			l = max(l, y+1)
		}
	}
	return l
}

// WriteJSONL writes set in the JSON Lines format, one instance per line,
// after checking it with psub.ValidateSet. Floats are written in the
// shortest form that reads back to the same float64, so a round trip is
// exact. Empty edge lists are written as [] (never null).
func WriteJSONL(w io.Writer, set []psub.Instance) error {
	if _, _, err := psub.ValidateSet(set, -1); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := range set {
		in := &set[i]
		out := struct {
			Name     string   `json:"name,omitempty"`
			Unary    any      `json:"unary"`
			Edges    [][2]int `json:"edges"`
			Pairwise any      `json:"pairwise"`
			Labels   []int    `json:"labels,omitempty"`
		}{in.Name, rowsJSON(in.Unary, in.UnarySparse), in.Edges, rowsJSON(in.Pairwise, in.PairwiseSparse), in.Labels}
		if out.Edges == nil {
			out.Edges = [][2]int{}
		}
		b, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("instance %d (%s): %w", i, in.Name, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// WriteJSONLFile writes set to path atomically (a temporary file renamed
// into place): a run killed while writing leaves the previous file, or
// none, never a part that reads as a smaller data set.
func WriteJSONLFile(path string, set []psub.Instance) error {
	return safefile.Write(path, func(w io.Writer) error { return WriteJSONL(w, set) })
}

// bomInside is the message for a byte-order mark that starts a line other
// than the first.
const bomInside = "a UTF-8 byte-order mark (bytes EF BB BF) starts this line; it may only start the file (were files joined, e.g. with cat?)"

// missingField is the message for a required field that is missing or
// null: what the field holds, and for edges and pairwise how to say none.
func missingField(name string) string {
	if name == "unary" {
		return "missing or null: one row of unary features per node is required (a graph has at least one node)"
	}
	return "missing or null (use [] for none)"
}

// checkLabelBudget checks, when L is not given and so is 1 + the largest
// label, that the L a line's labels imply leaves the weight vector (L·du +
// L²·dp float64s, training's least) within the memory budget: a label of
// 10⁵ in a file of a few bytes asks for 80 GB. The message names the
// instance and node of the largest label.
func checkLabelBudget(in *psub.Instance, index, du, dp int) error {
	if len(in.Labels) == 0 {
		return nil
	}
	y := slices.Max(in.Labels)
	node := slices.Index(in.Labels, y)
	L := int64(y) + 1
	need := membudget.Bytes(membudget.Add(membudget.Bytes(L, int64(du)), membudget.Bytes(L, L, int64(max(dp, 0)))), 8)
	if err := membudget.Check(fmt.Sprintf("a weight vector for %d labels (du=%d, dp=%d)", L, du, max(dp, 0)), need); err != nil {
		who := fmt.Sprintf("instance %d", index)
		if in.Name != "" {
			who += " (" + in.Name + ")"
		}
		return fmt.Errorf("%s: node %d: label %d makes L = %d labels (L is 1 + the largest label): %w", who, node, y, L, err)
	}
	return nil
}
