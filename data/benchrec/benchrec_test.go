package benchrec

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/modroot"
)

// benchJSON is a valid file; the cases below break it one way each.
const benchJSON = `{
  "doc": "x/BENCHMARKS.md",
  "machines": [{"id": "vm", "cpu": "2 vCPUs", "memory": "24 GiB", "system": "Linux", "software": "Go"}],
  "records": [{
    "id": "solve", "what": "one solve", "machine": "vm", "date": "2026-11-22", "commit": "abc1234",
    "load": "idle", "method": "min of 3", "command": "go test -bench .", "row_label": "instance",
    "columns": [
      {"key": "cpp", "label": "C++", "unit": "ms"},
      {"key": "go", "label": "Go", "unit": "ms"},
      {"key": "ratio", "label": "Go/C++", "ratio": ["go", "cpp"]},
      {"key": "flow", "label": "same flow"}
    ],
    "rows": [
      {"name": "grid", "cells": [1.945, 1.840, 0.95, "yes"]},
      {"name": "small", "commit": "def5678", "cells": [0.351, 0.433, 1.23, null]},
      {"name": "big", "cells": [101.5e6, 21, null, "yes"]}
    ],
    "notes": ["a note"]
  }]
}`

func TestParseBenchFile(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, wantErr string
	}{
		{"valid", "", "", ""},
		{"no doc", `"doc": "x/BENCHMARKS.md",`, ``, `t.json: no "doc" (the markdown that explains the records)`},
		{"unknown field", `"doc":`, `"docs": 1, "doc":`, `t.json: json: unknown field "docs"`},
		{"unknown machine", `"machine": "vm"`, `"machine": "pc"`, `t.json: record "solve": machine "pc" is not among the file's machines`},
		{"no command", `"command": "go test -bench ."`, `"command": " "`, `t.json: record "solve": no "command"`},
		{"bad date", `2026-11-22`, `22.11.2026`, `t.json: record "solve": date "22.11.2026" is not YYYY-MM-DD`},
		{"ragged row", `[1.945, 1.840, 0.95, "yes"]`, `[1.945, 1.840, 0.95]`, `t.json: record "solve": row "grid": 3 cells for 4 columns`},
		{"row twice", `"name": "small"`, `"name": "grid"`, `t.json: record "solve": row "grid" twice`},
		{"column twice", `"key": "go"`, `"key": "cpp"`, `t.json: record "solve": column "cpp" twice`},
		{"bool cell", `0.95, "yes"`, `0.95, true`, `t.json: cell true is not a number, a string or null`},
		{"ratio off", `1.840, 0.95`, `1.840, 0.94`, `t.json: record "solve": row "grid": ratio 0.94 but go / cpp = 1.840 / 1.945 = 0.946`},
		{"ratio of nothing", `"ratio": ["go", "cpp"]`, `"ratio": ["go", "c"]`, `t.json: record "solve": column "ratio": ratio must name two columns of the record, has ["go" "c"]`},
		{"trailing data", `"notes": ["a note"]
  }]
}`, `"notes": ["a note"]
  }]
} {}`, `t.json: data after the top-level object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(benchJSON, tc.from, tc.to, 1)
			if tc.from != "" && text == benchJSON {
				t.Fatalf("case does not change the file: %q", tc.from)
			}
			f, err := Parse(strings.NewReader(text), "t.json")
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if f.Path != "t.json" || len(f.Records) != 1 || len(f.Records[0].Rows) != 3 {
					t.Errorf("parsed %+v", f)
				}
				return
			}
			if err == nil || err.Error() != tc.wantErr {
				t.Fatalf("err %v\nwant %s", err, tc.wantErr)
			}
		})
	}
}

// TestBenchRatioRounding: the ratio check allows exactly the rounding of
// the numbers as written. 0.433/0.351 = 1.2336; written 1.23 with inputs
// rounded to 0.0005 the true ratio lies in [1.2290, 1.2382] ± 0.005.
func TestBenchRatioRounding(t *testing.T) {
	for _, tc := range []struct {
		q  string
		ok bool
	}{{"1.23", true}, {"1.24", true}, {"1.2", true}, {"1.244", false}, {"1.22", false}, {"1.0", false}, {"1", true}} {
		text := strings.Replace(benchJSON, "0.433, 1.23", "0.433, "+tc.q, 1)
		_, err := Parse(strings.NewReader(text), "t.json")
		if (err == nil) != tc.ok {
			t.Errorf("ratio %s written for 0.433/0.351: err %v, want ok %v", tc.q, err, tc.ok)
		}
	}
}

func TestHalfULP(t *testing.T) {
	for n, want := range map[json.Number]float64{"0.95": 0.005, "21": 0.5, "101.5e6": 0.05e6, "2E-3": 0.5e-3, "1.840": 0.0005} {
		if got := halfULP(n); math.Abs(got-want) > 1e-12*want {
			t.Errorf("halfULP(%s) = %g, want %g", n, got, want)
		}
	}
}

func TestBenchRecordLookups(t *testing.T) {
	f, err := Parse(strings.NewReader(benchJSON), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.Record("solve")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := r.Value("big", "cpp"); err != nil || v != 101.5e6 {
		t.Errorf("Value(big, cpp) = %g, %v", v, err)
	}
	for _, c := range [][2]string{{"grid", "flow"}, {"small", "flow"}, {"nothing", "cpp"}, {"grid", "nothing"}} {
		if _, err := r.Value(c[0], c[1]); err == nil {
			t.Errorf("Value(%s, %s): no error", c[0], c[1])
		}
	}
	if _, err := r.Value("grid", "nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown column: %v does not wrap ErrNotFound", err)
	}
	if _, err := f.Record("nothing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown record: %v", err)
	}
	if m := f.Machine(r); m.String() != "2 vCPUs; 24 GiB; Linux; Go" {
		t.Errorf("machine %q", m)
	}
	h, rows := r.Table()
	wantH := []string{"instance", "C++ (ms)", "Go (ms)", "Go/C++", "same flow", "commit"}
	wantRows := [][]string{
		{"grid", "1.945", "1.840", "0.95", "yes", "abc1234"},
		{"small", "0.351", "0.433", "1.23", "–", "def5678"},
		{"big", "101.5e6", "21", "–", "yes", "abc1234"},
	}
	if !reflect.DeepEqual(h, wantH) || !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("Table:\n%q\n%q\nwant\n%q\n%q", h, rows, wantH, wantRows)
	}
	// Written back, the file reads the same (cells as written).
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(strings.NewReader(string(b)), "t.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f, g) {
		t.Errorf("round trip changed the file:\n%s", b)
	}
}

// docNumber finds numbers as the BENCHMARKS files write them: digit groups
// separated by a space or a thin space (129 259), decimals, and an exponent
// as e6 or ·10⁶.
var docNumber = regexp.MustCompile(`\d+(?:[ \x{202f}\x{2009}\x{a0}]\d{3})*(?:\.\d+)?(?:[eE][-+]?\d+|·10[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?`)

// docNumbers is every number written in text; a grouped number also counts
// as its separate groups ("2 135" may be two numbers of a table row).
func docNumbers(text string) []float64 {
	var out []float64
	sup := strings.NewReplacer("⁻", "-", "⁰", "0", "¹", "1", "²", "2", "³", "3", "⁴", "4", "⁵", "5", "⁶", "6", "⁷", "7", "⁸", "8", "⁹", "9")
	for _, m := range docNumber.FindAllString(text, -1) {
		s := m
		if i := strings.Index(s, "·10"); i >= 0 {
			s = s[:i] + "e" + sup.Replace(s[i+len("·10"):])
		}
		s = strings.NewReplacer(" ", "", "\u202f", "", "\u2009", "", "\u00a0", "").Replace(s)
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			out = append(out, v)
		}
		if strings.ContainsAny(m, " \u202f\u2009\u00a0") {
			out = append(out, docNumbers(strings.NewReplacer("\u202f", "|", "\u2009", "|", "\u00a0", "|", " ", "|").Replace(m))...)
		}
	}
	return out
}

func TestDocNumbers(t *testing.T) {
	got := docNumbers("129 259 edges, 0.479 s, **4.4×**, 101.5e6 and 6.16·10⁶ margins, 10⁻³ gap, 2 135")
	want := []float64{129259, 129, 259, 0.479, 4.4, 101.5e6, 6.16e6, 10, 2135, 2, 135}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("docNumbers = %v, want %v", got, want)
	}
}

// TestRepositoryBenchFiles reads the repository's benchmark records (the
// ratio columns are checked on reading) and checks each against the
// markdown that explains it: the doc exists, names the JSON file, and
// writes every number of the records, so the two cannot drift apart
// silently.
func TestRepositoryBenchFiles(t *testing.T) {
	root, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	files, missing, err := ReadAll(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Logf("not recorded yet: %v", missing)
	}
	if len(files) < 4 {
		t.Errorf("%d benchmark files read, want at least 4 (missing %v)", len(files), missing)
	}
	for _, f := range files {
		doc, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Doc)))
		if err != nil {
			t.Errorf("%s: its doc: %v", f.Path, err)
			continue
		}
		if !strings.Contains(string(doc), filepath.Base(f.Path)) {
			t.Errorf("%s does not name %s", f.Doc, filepath.Base(f.Path))
		}
		nums := docNumbers(string(doc))
		for _, r := range f.Records {
			for _, row := range r.Rows {
				for j, c := range row.Cells {
					v, ok := c.Float()
					if ok && !containsNumber(nums, v) {
						t.Errorf("%s: record %q, row %q, column %q: %s is not written in %s", f.Path, r.ID, row.Name, r.Columns[j].Key, c.Num, f.Doc)
					}
				}
			}
		}
	}
}

func containsNumber(nums []float64, v float64) bool {
	for _, n := range nums {
		if math.Abs(n-v) <= 1e-9*math.Abs(v) {
			return true
		}
	}
	return false
}
