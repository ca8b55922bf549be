package arff

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// AttrKind is the type of an ARFF attribute. Only the two kinds that
// multi-label data uses are supported; string, date and relational
// attributes are rejected with an error naming the line.
type AttrKind int

const (
	Numeric AttrKind = iota // numeric, real or integer
	Nominal                 // {v1, v2, ...}; stored as the index of the value
)

// Attribute is one column of an ARFF file.
type Attribute struct {
	Name   string
	Kind   AttrKind
	Values []string // the nominal values, in declaration order
}

// File is a parsed ARFF file. Rows are dense whatever the file's encoding:
// numeric values as written, nominal values as the index of the value in
// Attribute.Values (Weka's convention, so an omitted entry of a sparse row,
// 0, is the first nominal value), missing values ('?') as NaN.
type File struct {
	Relation   string
	Attributes []Attribute
	Rows       [][]float64
	RowLines   []int  // the line of each row in the file, for messages
	Source     string // file name for messages ("" when read from a stream)
}

// Read parses an ARFF file (see Parse).
func Read(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads ARFF from r; name is used in messages ("file:line: ...").
// It accepts: '%' comment lines, case-insensitive @relation/@attribute/@data,
// names and nominal values in single or double quotes (with backslash
// escapes), dense rows (comma-separated) and sparse rows ({index value, ...},
// 0-based indices, omitted entries 0). Instance weights ({w} after a row)
// are not supported.
func Parse(r io.Reader, name string) (*File, error) {
	a := &File{Source: name}
	br := bufio.NewReaderSize(r, 1<<16)
	inData, sawRelation := false, false
	for line := 1; ; line++ {
		s, rerr := br.ReadString('\n')
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("%s: read: %w", name, rerr)
		}
		s = strings.TrimSpace(s)
		if s != "" && s[0] != '%' {
			if err := a.parseLine(s, line, &inData, &sawRelation); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		if rerr == io.EOF {
			break
		}
	}
	if !inData {
		return nil, fmt.Errorf("%s: no @data section", name)
	}
	return a, nil
}

func (a *File) parseLine(s string, line int, inData, sawRelation *bool) error {
	if *inData {
		row, err := a.parseRow(s)
		if err != nil {
			return err
		}
		a.Rows = append(a.Rows, row)
		a.RowLines = append(a.RowLines, line)
		return nil
	}
	if s[0] != '@' {
		return fmt.Errorf("expected @relation, @attribute or @data before the data, got %q", clip(s))
	}
	kw, rest := s, ""
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		kw, rest = s[:i], strings.TrimSpace(s[i:])
	}
	switch strings.ToLower(kw) {
	case "@relation":
		if *sawRelation {
			return fmt.Errorf("second @relation")
		}
		name, tail, err := nextToken(rest)
		if err != nil {
			return fmt.Errorf("@relation: %w", err)
		}
		if strings.TrimSpace(tail) != "" {
			return fmt.Errorf("@relation: unexpected %q after the name (quote names with spaces)", clip(tail))
		}
		a.Relation, *sawRelation = name, true
	case "@attribute":
		at, err := parseAttribute(rest)
		if err != nil {
			return fmt.Errorf("@attribute: %w", err)
		}
		for _, b := range a.Attributes {
			if b.Name == at.Name {
				return fmt.Errorf("@attribute: duplicate name %q", at.Name)
			}
		}
		a.Attributes = append(a.Attributes, at)
	case "@data":
		if len(a.Attributes) == 0 {
			return fmt.Errorf("@data before any @attribute")
		}
		*inData = true
	default:
		return fmt.Errorf("unknown declaration %q", kw)
	}
	return nil
}

func parseAttribute(s string) (Attribute, error) {
	name, rest, err := nextToken(s)
	if err != nil {
		return Attribute{}, err
	}
	if name == "" {
		return Attribute{}, fmt.Errorf("missing name")
	}
	rest = strings.TrimSpace(rest)
	at := Attribute{Name: name}
	if strings.HasPrefix(rest, "{") {
		if !strings.HasSuffix(rest, "}") {
			return at, fmt.Errorf("%q: nominal values must end with '}'", name)
		}
		vals, err := splitList(rest[1 : len(rest)-1])
		if err != nil {
			return at, fmt.Errorf("%q: %w", name, err)
		}
		if len(vals) == 0 {
			return at, fmt.Errorf("%q: empty nominal value list", name)
		}
		at.Kind, at.Values = Nominal, vals
		return at, nil
	}
	switch t := strings.ToLower(rest); t {
	case "numeric", "real", "integer":
		at.Kind = Numeric
	case "":
		return at, fmt.Errorf("%q: missing type", name)
	default:
		return at, fmt.Errorf("%q: type %q is not supported (numeric, real, integer or {nominal values})", name, clip(rest))
	}
	return at, nil
}

func (a *File) parseRow(s string) ([]float64, error) {
	row := make([]float64, len(a.Attributes))
	if strings.HasPrefix(s, "{") {
		end := closingBrace(s)
		if end < 0 {
			return nil, fmt.Errorf("sparse row: missing '}'")
		}
		if tail := strings.TrimSpace(s[end+1:]); tail != "" {
			return nil, fmt.Errorf("sparse row: unexpected %q after '}' (instance weights are not supported)", clip(tail))
		}
		items, err := splitList(s[1:end])
		if err != nil {
			return nil, fmt.Errorf("sparse row: %w", err)
		}
		seen := make(map[int]bool, len(items))
		for _, it := range items {
			i := strings.IndexAny(it, " \t")
			if i < 0 {
				return nil, fmt.Errorf("sparse row: entry %q is not \"index value\"", clip(it))
			}
			idx, val := it[:i], strings.TrimSpace(it[i:])
			j, err := strconv.Atoi(idx)
			if err != nil || j < 0 || j >= len(a.Attributes) {
				return nil, fmt.Errorf("sparse row: index %q outside [0,%d)", idx, len(a.Attributes))
			}
			if seen[j] {
				return nil, fmt.Errorf("sparse row: index %d given twice", j)
			}
			seen[j] = true
			v, tok, err := unquoteValue(val)
			if err != nil {
				return nil, fmt.Errorf("sparse row: attribute %d (%s): %w", j, a.Attributes[j].Name, err)
			}
			if row[j], err = a.value(j, v, tok); err != nil {
				return nil, err
			}
		}
		return row, nil
	}
	vals, err := splitListRaw(s)
	if err != nil {
		return nil, err
	}
	if len(vals) != len(a.Attributes) {
		return nil, fmt.Errorf("row has %d values, expected %d (one per @attribute)", len(vals), len(a.Attributes))
	}
	for j, raw := range vals {
		v, quoted, err := unquoteValue(raw)
		if err != nil {
			return nil, fmt.Errorf("attribute %d (%s): %w", j, a.Attributes[j].Name, err)
		}
		if row[j], err = a.value(j, v, quoted); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// value converts the text of attribute j. A bare '?' is missing (NaN).
func (a *File) value(j int, v string, quoted bool) (float64, error) {
	at := &a.Attributes[j]
	if v == "?" && !quoted {
		return math.NaN(), nil
	}
	if at.Kind == Numeric {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("attribute %d (%s): %q is not a finite number", j, at.Name, clip(v))
		}
		return f, nil
	}
	for k, nv := range at.Values {
		if nv == v {
			return float64(k), nil
		}
	}
	return 0, fmt.Errorf("attribute %d (%s): %q is not one of its values {%s}", j, at.Name, clip(v), strings.Join(at.Values, ","))
}

// closingBrace returns the index of the first '}' outside quotes, or -1.
func closingBrace(s string) int {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == '}':
			return i
		}
	}
	return -1
}

// nextToken returns the first token of s (quoted or up to white space) and
// the rest.
func nextToken(s string) (tok, rest string, err error) {
	s = strings.TrimLeft(s, " \t")
	if s == "" {
		return "", "", nil
	}
	if q := s[0]; q == '\'' || q == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\' && i+1 < len(s):
				i++
				b.WriteByte(s[i])
			case c == q:
				return b.String(), s[i+1:], nil
			default:
				b.WriteByte(c)
			}
		}
		return "", "", fmt.Errorf("unterminated quote in %q", clip(s))
	}
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i:], nil
	}
	return s, "", nil
}

// splitListRaw splits on commas outside quotes, keeping quotes.
func splitListRaw(s string) ([]string, error) {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '\'' || c == '"'):
			quote = c
		case quote == 0 && c == ',':
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if last := strings.TrimSpace(s[start:]); last != "" || len(out) > 0 {
		out = append(out, last)
	}
	return out, nil
}

// splitList splits on commas outside quotes and unquotes each element.
func splitList(s string) ([]string, error) {
	raw, err := splitListRaw(s)
	if err != nil {
		return nil, err
	}
	for i, r := range raw {
		if raw[i], _, err = unquoteValue(r); err != nil {
			return nil, err
		}
	}
	return raw, nil
}

// unquoteValue strips quotes from a single value; quoted reports whether
// there were any ('?' quoted is a value, not a missing marker).
func unquoteValue(s string) (v string, quoted bool, err error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false, fmt.Errorf("empty value")
	}
	if s[0] != '\'' && s[0] != '"' {
		return s, false, nil
	}
	tok, rest, err := nextToken(s)
	if err != nil {
		return "", true, err
	}
	if strings.TrimSpace(rest) != "" {
		return "", true, fmt.Errorf("unexpected %q after quoted value", clip(rest))
	}
	return tok, true, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}

// LabelSpec says which attributes of a multi-label ARFF file are the labels.
// Set exactly one field; the zero value means "from the @relation": MEKA
// headers carry the count as an option, '-C N' (N > 0: the first N
// attributes are labels; N < 0: the last |N|), as in scene's
// "@relation 'scene: -C -6'". MULAN headers (yeast's "MultiLabelData") carry
// no count: the labels must then be given, e.g. LabelSpec{Last: 14}, or by
// name (MULAN's separate XML file lists them). When the header has -C
// and the spec disagrees with it, reading fails rather than guess.
type LabelSpec struct {
	First int      // the first First attributes are the labels
	Last  int      // the last Last attributes are the labels
	Names []string // the labels by attribute name, in this order
}

var mekaC = regexp.MustCompile(`(?:^|[\s:])-C\s+(-?\d+)`)

// MEKALabels returns the label count in a MEKA relation name: '-C N' as a
// LabelSpec, and false when the relation has no -C option.
func MEKALabels(relation string) (LabelSpec, bool) {
	m := mekaC.FindStringSubmatch(relation)
	if m == nil {
		return LabelSpec{}, false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n == 0 {
		return LabelSpec{}, false
	}
	if n > 0 {
		return LabelSpec{First: n}, true
	}
	return LabelSpec{Last: -n}, true
}

// labelColumns resolves spec to attribute indices.
func (a *File) labelColumns(spec LabelSpec) ([]int, error) {
	set := 0
	for _, b := range []bool{spec.First != 0, spec.Last != 0, spec.Names != nil} {
		if b {
			set++
		}
	}
	meka, hasMeka := MEKALabels(a.Relation)
	switch {
	case set > 1:
		return nil, fmt.Errorf("label spec %+v: give the labels one way (First, Last or Names)", spec)
	case set == 0 && !hasMeka:
		return nil, fmt.Errorf("@relation %q gives no label count (MEKA '-C N'); give the label columns by count (first or last N) or by names", a.Relation)
	case set == 0:
		spec = meka
	case hasMeka && spec.Names == nil && (spec.First != meka.First || spec.Last != meka.Last):
		return nil, fmt.Errorf("label spec %+v contradicts the header's @relation %q", spec, a.Relation)
	}
	n := len(a.Attributes)
	var cols []int
	switch {
	case spec.First < 0 || spec.Last < 0:
		return nil, fmt.Errorf("label count must be positive, got %+v", spec)
	case spec.First > 0 || spec.Last > 0:
		k := spec.First + spec.Last
		if k >= n {
			return nil, fmt.Errorf("%d label columns leave no feature among %d attributes", k, n)
		}
		start := 0
		if spec.Last > 0 {
			start = n - k
		}
		for j := start; j < start+k; j++ {
			cols = append(cols, j)
		}
	default:
		if len(spec.Names) == 0 {
			return nil, fmt.Errorf("empty list of label names")
		}
		idx := make(map[string]int, n)
		for j, at := range a.Attributes {
			idx[at.Name] = j
		}
		used := map[int]bool{}
		for _, name := range spec.Names {
			j, ok := idx[name]
			if !ok {
				return nil, fmt.Errorf("label %q is not an attribute", name)
			}
			if used[j] {
				return nil, fmt.Errorf("label %q given twice", name)
			}
			used[j] = true
			cols = append(cols, j)
		}
		if len(cols) >= n {
			return nil, fmt.Errorf("%d label columns leave no feature among %d attributes", len(cols), n)
		}
	}
	return cols, nil
}

// MultiLabel is a multi-label reading of a File: n examples with d numeric
// features and |C| binary labels.
type MultiLabel struct {
	FeatureNames []string
	LabelNames   []string
	X            [][]float64 // n × d
	Y            [][]int     // n × |C|, each 0 or 1
}

// MultiLabel splits the attributes into features and labels. Labels must be
// nominal with values "0" and "1" (or numeric 0/1); features must be numeric.
// Missing values are errors (naming the line and attribute).
func (a *File) MultiLabel(spec LabelSpec) (*MultiLabel, error) {
	cols, err := a.labelColumns(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Source, err)
	}
	isLabel := make([]bool, len(a.Attributes))
	for _, j := range cols {
		isLabel[j] = true
	}
	s := &MultiLabel{}
	var feats []int
	for j, at := range a.Attributes {
		if isLabel[j] {
			continue
		}
		if at.Kind != Numeric {
			return nil, fmt.Errorf("%s: feature attribute %d (%s) is nominal; only numeric features are supported", a.Source, j, at.Name)
		}
		feats = append(feats, j)
		s.FeatureNames = append(s.FeatureNames, at.Name)
	}
	// bit[j][k] maps the stored value k of label attribute j to 0/1.
	bit := make(map[int]map[float64]int, len(cols))
	for _, j := range cols {
		at := a.Attributes[j]
		s.LabelNames = append(s.LabelNames, at.Name)
		m := map[float64]int{0: 0, 1: 1}
		if at.Kind == Nominal {
			m = map[float64]int{}
			for k, v := range at.Values {
				switch v {
				case "0":
					m[float64(k)] = 0
				case "1":
					m[float64(k)] = 1
				default:
					return nil, fmt.Errorf("%s: label attribute %d (%s) has value %q; labels must be {0,1}", a.Source, j, at.Name, v)
				}
			}
		}
		bit[j] = m
	}
	for i, row := range a.Rows {
		x := make([]float64, len(feats))
		for f, j := range feats {
			if math.IsNaN(row[j]) {
				return nil, fmt.Errorf("%s:%d: feature %s is missing ('?')", a.Source, a.RowLines[i], a.Attributes[j].Name)
			}
			x[f] = row[j]
		}
		y := make([]int, len(cols))
		for c, j := range cols {
			b, ok := bit[j][row[j]]
			if !ok {
				return nil, fmt.Errorf("%s:%d: label %s is %v, expected 0 or 1", a.Source, a.RowLines[i], a.Attributes[j].Name, row[j])
			}
			y[c] = b
		}
		s.X, s.Y = append(s.X, x), append(s.Y, y)
	}
	if len(s.X) == 0 {
		return nil, fmt.Errorf("%s: no data rows", a.Source)
	}
	return s, nil
}
