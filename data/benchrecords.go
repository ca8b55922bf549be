package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BenchRecordFiles lists, relative to the module root, the recorded
// benchmark files whose tables the benchmarks notebook shows: each gives
// its commands, its machine and the load it ran under.
func BenchRecordFiles() []string {
	return []string{
		"psub/maxflow/BENCHMARKS.md",
		"psub/slic/BENCHMARKS.md",
		"psub/inference/README.md",
		"data/BENCHMARKS.md",
		"psub/BENCHMARKS.md",
	}
}

// BenchTable is one markdown table of a recorded benchmark file, cells as
// written (bold marks and all).
type BenchTable struct {
	Source  string // the file it was read from
	Heading string // the nearest heading above the table ("" if none)
	Header  []string
	Rows    [][]string
}

// BenchRecord is one recorded benchmark file: its tables and the text that
// says on which machine, and under which load, the numbers were measured.
type BenchRecord struct {
	Source  string
	Machine string
	Tables  []BenchTable
}

// ReadBenchRecord reads a recorded benchmark file. A missing file is
// reported with errors.Is(err, os.ErrNotExist).
func ReadBenchRecord(path string) (*BenchRecord, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := string(b)
	tables, err := ParseMarkdownTables(strings.NewReader(text), path)
	if err != nil {
		return nil, err
	}
	return &BenchRecord{Source: path, Machine: MachineText(text), Tables: tables}, nil
}

// ReadBenchRecords reads every file of BenchRecordFiles under root, skipping
// the ones that do not exist (yet); the second result lists them.
func ReadBenchRecords(root string) (recs []*BenchRecord, missing []string, err error) {
	for _, f := range BenchRecordFiles() {
		r, err := ReadBenchRecord(filepath.Join(root, f))
		if os.IsNotExist(err) {
			missing = append(missing, f)
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		r.Source = f
		for i := range r.Tables {
			r.Tables[i].Source = f
		}
		recs = append(recs, r)
	}
	return recs, missing, nil
}

// ParseMarkdownTables returns the pipe tables of a markdown text: a header
// row, a separator row of dashes, then body rows. A body row with a
// different number of cells than the header is an error naming the line.
func ParseMarkdownTables(r io.Reader, source string) ([]BenchTable, error) {
	var out []BenchTable
	var cur *BenchTable
	heading := ""
	var prev []string // the previous line's cells, a header candidate
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(s, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(s, "#"))
		}
		cells, isRow := splitRow(s)
		switch {
		case cur != nil && isRow:
			if len(cells) != len(cur.Header) {
				return nil, fmt.Errorf("%s:%d: table row has %d cells, header has %d", source, line, len(cells), len(cur.Header))
			}
			cur.Rows = append(cur.Rows, cells)
		case cur != nil:
			out = append(out, *cur)
			cur = nil
		case isRow && prev != nil && isSeparator(cells) && len(cells) == len(prev):
			cur = &BenchTable{Source: source, Heading: heading, Header: prev}
		}
		prev = nil
		if isRow && cur == nil {
			prev = cells
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", source, err)
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out, nil
}

func splitRow(s string) ([]string, bool) {
	if len(s) < 2 || s[0] != '|' || s[len(s)-1] != '|' {
		return nil, false
	}
	parts := strings.Split(s[1:len(s)-1], "|")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts, true
}

func isSeparator(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, ":-") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// Column is the index of the header cell equal to name (ignoring bold
// marks and case), or -1.
func (t BenchTable) Column(name string) int {
	for i, h := range t.Header {
		if strings.EqualFold(strings.Trim(h, "* "), name) {
			return i
		}
	}
	return -1
}

// Row is the first body row whose first cell (without bold marks or
// backquotes) equals name, or nil.
func (t BenchTable) Row(name string) []string {
	for _, r := range t.Rows {
		if strings.Trim(r[0], "*` ") == name {
			return r
		}
	}
	return nil
}

// CellFloat reads a number as the benchmark files write it: bold marks,
// spaces between digit groups (2 530 304), a trailing unit or "×" after a
// space-free number (4.4×, 28.2 s, 351 MB) are dropped.
func CellFloat(cell string) (float64, error) {
	s := strings.Trim(cell, "*` ")
	s = strings.ReplaceAll(s, "\u202f", " ")
	// Join digit groups: "2 530 304" → "2530304"; stop at the first
	// token that is not all digits (a unit).
	fields := strings.Fields(s)
	num := ""
	for i, f := range fields {
		if i > 0 && !allDigits(f) {
			break
		}
		num += f
		if i == 0 && !allDigits(f) {
			break
		}
	}
	num = strings.TrimRight(num, "×xs%")
	v, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("cell %q is not a number", cell)
	}
	return v, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// MachineText returns what a benchmark file says about its machine: the
// section under the first heading containing "Machine", or else the first
// paragraph starting with "Measured".
func MachineText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") && strings.Contains(l, "Machine") {
			var sec []string
			for _, m := range lines[i+1:] {
				if strings.HasPrefix(m, "#") {
					break
				}
				sec = append(sec, m)
			}
			return strings.TrimSpace(strings.Join(sec, "\n"))
		}
	}
	paras := strings.Split(text, "\n\n")
	for _, p := range paras {
		if strings.HasPrefix(strings.TrimSpace(p), "Measured") {
			return strings.TrimSpace(p)
		}
	}
	return ""
}
