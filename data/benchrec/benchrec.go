package benchrec

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Files lists, relative to the module root, the benchmark record files
// that the benchmarks notebook shows.
func Files() []string {
	return []string{
		"psub/maxflow/benchmarks.json",
		"psub/slic/benchmarks.json",
		"psub/inference/benchmarks.json",
		"data/benchmarks.json",
		"psub/benchmarks.json",
		"psub/qp/benchmarks.json",
	}
}

// File is one benchmarks.json: the machines its records were measured
// on and the records.
type File struct {
	Path     string    `json:"-"`   // where it was read from
	Doc      string    `json:"doc"` // the markdown that explains it, relative to the module root
	Machines []Machine `json:"machines"`
	Records  []Record  `json:"records"`
}

// Machine describes a machine that records were measured on.
type Machine struct {
	ID       string `json:"id"`
	CPU      string `json:"cpu"`
	Memory   string `json:"memory"`
	System   string `json:"system"`
	Software string `json:"software"` // compilers, libraries, yardsticks
}

// Record is one measurement: what was measured, on which machine, when
// and at which commit, how (the method), the command that reruns it, and the
// numbers as a table. A row may name its own commit when it was measured on
// other code than the rest.
type Record struct {
	ID       string   `json:"id"`
	What     string   `json:"what"`
	Machine  string   `json:"machine"` // a Machine.ID of the file
	Date     string   `json:"date"`    // YYYY-MM-DD
	Commit   string   `json:"commit"`
	Load     string   `json:"load"` // other work on the machine during the runs
	Method   string   `json:"method"`
	Command  string   `json:"command"`
	RowLabel string   `json:"row_label"` // header of the rows' name column
	Columns  []Column `json:"columns"`
	Rows     []Row    `json:"rows"`
	Notes    []string `json:"notes,omitempty"`
}

// Column is a column of a record. Ratio, when set, names the numerator
// and denominator columns of the same row; reading checks the ratio against
// them within the rounding of the numbers as written.
type Column struct {
	Key   string   `json:"key"`
	Label string   `json:"label"`
	Unit  string   `json:"unit,omitempty"`
	Ratio []string `json:"ratio,omitempty"`
}

// Row is a named row, one cell per column.
type Row struct {
	Name   string `json:"name"`
	Commit string `json:"commit,omitempty"` // when not the record's
	Cells  []Cell `json:"cells"`
}

// Cell is a JSON number (kept as written, so its rounding is known), a
// string, or null for "not measured".
type Cell struct {
	Num  json.Number
	Text string
}

// UnmarshalJSON accepts a number, a string or null.
func (c *Cell) UnmarshalJSON(b []byte) error {
	*c = Cell{}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	switch v := v.(type) {
	case nil:
	case json.Number:
		c.Num = v
	case string:
		c.Text = v
	default:
		return fmt.Errorf("cell %s is not a number, a string or null", b)
	}
	return nil
}

// MarshalJSON writes the cell back as it was read.
func (c Cell) MarshalJSON() ([]byte, error) {
	switch {
	case c.Num != "":
		return []byte(c.Num), nil
	case c.Text != "":
		return json.Marshal(c.Text)
	}
	return []byte("null"), nil
}

// Float is the cell's number; ok is false for text and empty cells.
func (c Cell) Float() (v float64, ok bool) {
	if c.Num == "" {
		return 0, false
	}
	v, err := c.Num.Float64()
	return v, err == nil
}

// String is the cell as written: the number's digits, the text, or "–".
func (c Cell) String() string {
	switch {
	case c.Num != "":
		return string(c.Num)
	case c.Text != "":
		return c.Text
	}
	return "–"
}

// ErrNotFound is wrapped by lookups of a record, row or column that a
// file does not have.
var ErrNotFound = errors.New("no such benchmark record")

// Read reads and checks a benchmarks.json. A missing file is
// reported with errors.Is(err, os.ErrNotExist).
func Read(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(bytes.NewReader(b), path)
}

// ReadAll reads every file of Files under root, skipping the
// ones that do not exist (yet): the second result lists them. Paths are kept
// relative to root.
func ReadAll(root string) (files []*File, missing []string, err error) {
	for _, name := range Files() {
		f, err := Read(filepath.Join(root, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, name)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		f.Path = name
		files = append(files, f)
	}
	return files, missing, nil
}

// Parse decodes a benchmarks.json (unknown fields are errors) and
// checks it; name is used in errors.
func Parse(r io.Reader, name string) (*File, error) {
	d := json.NewDecoder(r)
	d.DisallowUnknownFields()
	var f File
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if d.More() {
		return nil, fmt.Errorf("%s: data after the top-level object", name)
	}
	f.Path = name
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &f, nil
}

var datePattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

func (f *File) check() error {
	if f.Doc == "" {
		return errors.New(`no "doc" (the markdown that explains the records)`)
	}
	machines := map[string]bool{}
	for i, m := range f.Machines {
		if m.ID == "" || m.CPU == "" {
			return fmt.Errorf("machine %d: needs an id and a cpu", i+1)
		}
		if machines[m.ID] {
			return fmt.Errorf("machine %q twice", m.ID)
		}
		machines[m.ID] = true
	}
	if len(f.Records) == 0 {
		return errors.New("no records")
	}
	ids := map[string]bool{}
	for i := range f.Records {
		r := &f.Records[i]
		if r.ID == "" {
			return fmt.Errorf("record %d: no id", i+1)
		}
		if ids[r.ID] {
			return fmt.Errorf("record %q twice", r.ID)
		}
		ids[r.ID] = true
		if !machines[r.Machine] {
			return fmt.Errorf("record %q: machine %q is not among the file's machines", r.ID, r.Machine)
		}
		if err := r.check(); err != nil {
			return fmt.Errorf("record %q: %w", r.ID, err)
		}
	}
	return nil
}

func (r *Record) check() error {
	for _, f := range []struct{ name, v string }{
		{"what", r.What}, {"commit", r.Commit}, {"load", r.Load},
		{"method", r.Method}, {"command", r.Command}, {"row_label", r.RowLabel},
	} {
		if strings.TrimSpace(f.v) == "" {
			return fmt.Errorf("no %q", f.name)
		}
	}
	if !datePattern.MatchString(r.Date) {
		return fmt.Errorf("date %q is not YYYY-MM-DD", r.Date)
	}
	if len(r.Columns) == 0 || len(r.Rows) == 0 {
		return errors.New("needs columns and rows")
	}
	for i, c := range r.Columns {
		if c.Key == "" || c.Label == "" {
			return fmt.Errorf("column %d: needs a key and a label", i+1)
		}
		if r.column(c.Key) != i {
			return fmt.Errorf("column %q twice", c.Key)
		}
	}
	names := map[string]bool{}
	for i, row := range r.Rows {
		if row.Name == "" {
			return fmt.Errorf("row %d: no name", i+1)
		}
		if names[row.Name] {
			return fmt.Errorf("row %q twice", row.Name)
		}
		names[row.Name] = true
		if len(row.Cells) != len(r.Columns) {
			return fmt.Errorf("row %q: %d cells for %d columns", row.Name, len(row.Cells), len(r.Columns))
		}
		for j, c := range row.Cells {
			if c.Num == "" {
				continue
			}
			if v, ok := c.Float(); !ok || math.IsInf(v, 0) {
				return fmt.Errorf("row %q, column %q: %s is not a finite number", row.Name, r.Columns[j].Key, c.Num)
			}
		}
	}
	for _, c := range r.Columns {
		if err := r.checkRatio(c); err != nil {
			return err
		}
	}
	return nil
}

// checkRatio checks a ratio column in every row where it and both of its
// inputs are numbers: written q = a/b must hold up to the rounding of q, a
// and b as written (half a unit of their last digit).
func (r *Record) checkRatio(c Column) error {
	if c.Ratio == nil {
		return nil
	}
	if len(c.Ratio) != 2 || r.column(c.Ratio[0]) < 0 || r.column(c.Ratio[1]) < 0 {
		return fmt.Errorf("column %q: ratio must name two columns of the record, has %q", c.Key, c.Ratio)
	}
	qi, ai, bi := r.column(c.Key), r.column(c.Ratio[0]), r.column(c.Ratio[1])
	for _, row := range r.Rows {
		q, ok1 := row.Cells[qi].Float()
		a, ok2 := row.Cells[ai].Float()
		b, ok3 := row.Cells[bi].Float()
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		if b == 0 {
			return fmt.Errorf("row %q, column %q: ratio over a zero %q", row.Name, c.Key, c.Ratio[1])
		}
		ea, eb := halfULP(row.Cells[ai].Num), halfULP(row.Cells[bi].Num)
		tol := halfULP(row.Cells[qi].Num) + math.Abs(a/b)*(ea/math.Abs(a)+eb/math.Abs(b))
		if math.Abs(q-a/b) > tol*(1+1e-9) {
			return fmt.Errorf("row %q: %s %s but %s / %s = %s / %s = %.4g", row.Name, c.Key, row.Cells[qi].Num,
				c.Ratio[0], c.Ratio[1], row.Cells[ai].Num, row.Cells[bi].Num, a/b)
		}
	}
	return nil
}

// halfULP is half a unit of the last digit of a number as written: 0.005
// for 0.95, 0.5 for 21, 0.05e6 for 101.5e6.
func halfULP(n json.Number) float64 {
	s := strings.ToLower(string(n))
	exp := 0
	if i := strings.IndexByte(s, 'e'); i >= 0 {
		exp, _ = strconv.Atoi(s[i+1:])
		s = s[:i]
	}
	if i := strings.IndexByte(s, '.'); i >= 0 {
		exp -= len(s) - i - 1
	}
	return 0.5 * math.Pow(10, float64(exp))
}

func (r *Record) column(key string) int {
	return slices.IndexFunc(r.Columns, func(c Column) bool { return c.Key == key })
}

// Record is the record with the given id.
func (f *File) Record(id string) (*Record, error) {
	if i := slices.IndexFunc(f.Records, func(r Record) bool { return r.ID == id }); i >= 0 {
		return &f.Records[i], nil
	}
	return nil, fmt.Errorf("%s has no record %q: %w", f.Path, id, ErrNotFound)
}

// Machine is the description of the machine a record of f names.
func (f *File) Machine(r *Record) Machine {
	if i := slices.IndexFunc(f.Machines, func(m Machine) bool { return m.ID == r.Machine }); i >= 0 {
		return f.Machines[i]
	}
	return Machine{ID: r.Machine}
}

// Value is the number in a row and column (by key) of the record.
func (r *Record) Value(row, column string) (float64, error) {
	i := slices.IndexFunc(r.Rows, func(rw Row) bool { return rw.Name == row })
	if i < 0 {
		return 0, fmt.Errorf("record %q has no row %q: %w", r.ID, row, ErrNotFound)
	}
	rw := r.Rows[i]
	j := r.column(column)
	if j < 0 {
		return 0, fmt.Errorf("record %q has no column %q: %w", r.ID, column, ErrNotFound)
	}
	v, ok := rw.Cells[j].Float()
	if !ok {
		return 0, fmt.Errorf("record %q, row %q, column %q: %q is not a number", r.ID, row, column, rw.Cells[j].String())
	}
	return v, nil
}

// Table is the record as a table to show: the row label, then each column's
// label with its unit in brackets, and a commit column when a row was
// measured at another commit than the record's.
func (r *Record) Table() (header []string, rows [][]string) {
	header = []string{r.RowLabel}
	for _, c := range r.Columns {
		h := c.Label
		if c.Unit != "" {
			h += " (" + c.Unit + ")"
		}
		header = append(header, h)
	}
	commits := slices.ContainsFunc(r.Rows, func(row Row) bool { return row.Commit != "" })
	if commits {
		header = append(header, "commit")
	}
	for _, row := range r.Rows {
		cells := []string{row.Name}
		for _, c := range row.Cells {
			cells = append(cells, c.String())
		}
		if commits {
			cells = append(cells, cmp.Or(row.Commit, r.Commit))
		}
		rows = append(rows, cells)
	}
	return header, rows
}

// String describes the machine in one line.
func (m Machine) String() string {
	parts := slices.DeleteFunc([]string{m.CPU, m.Memory, m.System, m.Software}, func(s string) bool { return s == "" })
	return strings.Join(parts, "; ")
}
