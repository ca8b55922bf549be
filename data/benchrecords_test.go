package data

import (
	"math"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

func TestParseMarkdownTables(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		tables  int
		heading string
		rows    int
		wantErr string
	}{
		{"one table", "# A\n\n| x | y |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n", 1, "A", 2, ""},
		{"aligned separator, text after", "## B\n| x | y |\n|:--|--:|\n| 1 | 2 |\ntext\n", 1, "B", 1, ""},
		{"no separator is no table", "| x | y |\n| 1 | 2 |\n", 0, "", 0, ""},
		{"two tables", "# C\n| a |\n|---|\n| 1 |\n\n# D\n| b |\n|---|\n| 2 |\n| 3 |\n", 2, "C", 1, ""},
		{"ragged row", "| a | b |\n|---|---|\n| 1 |\n", 0, "", 0, "x.md:3: table row has 1 cells, header has 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseMarkdownTables(strings.NewReader(tc.text), "x.md")
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.tables {
				t.Fatalf("%d tables, want %d", len(got), tc.tables)
			}
			if tc.tables > 0 && (got[0].Heading != tc.heading || len(got[0].Rows) != tc.rows || got[0].Source != "x.md") {
				t.Errorf("first table %+v", got[0])
			}
		})
	}
}

func TestCellFloat(t *testing.T) {
	for _, tc := range []struct {
		cell string
		want float64
		ok   bool
	}{
		{"**1.23**", 1.23, true},
		{"2 530 304", 2530304, true},
		{"28.2 s", 28.2, true},
		{"4.4×", 4.4, true},
		{"**21×**", 21, true},
		{"351 MB", 351, true},
		{"0.76", 0.76, true},
		{"–", 0, false},
		{"yes (613.3606967)", 0, false},
	} {
		got, err := CellFloat(tc.cell)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("CellFloat(%q) = %g, %v; want %g, ok %v", tc.cell, got, err, tc.want, tc.ok)
		}
	}
}

// TestBenchRecordFiles reads the repository's recorded benchmark files and
// checks that the numbers the notebook compares are there and consistent
// with each other as written (ratio columns against their inputs).
func TestBenchRecordFiles(t *testing.T) {
	recs, missing, err := ReadBenchRecords("..")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("missing (not yet written): %v", missing)
	found := map[string]*BenchRecord{}
	for _, r := range recs {
		found[r.Source] = r
		if r.Machine == "" {
			t.Errorf("%s: no machine description found", r.Source)
		}
		if len(r.Tables) == 0 {
			t.Errorf("%s: no tables", r.Source)
		}
	}
	mf := found["psub/maxflow/BENCHMARKS.md"]
	if mf == nil {
		t.Skip("psub/maxflow/BENCHMARKS.md not present")
	}
	var checked int
	for _, tb := range mf.Tables {
		cpp, gor, ratio := tb.Column("solve CPU ms C++"), tb.Column("solve CPU ms Go"), tb.Column("Go/C++ CPU")
		if cpp < 0 || gor < 0 || ratio < 0 {
			continue
		}
		for _, r := range tb.Rows {
			c, err1 := CellFloat(r[cpp])
			g, err2 := CellFloat(r[gor])
			q, err3 := CellFloat(r[ratio])
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("%s row %q: %v %v %v", mf.Source, r[0], err1, err2, err3)
			}
			if math.Abs(g/c-q) > 0.006 {
				t.Errorf("%s row %q: Go/C++ %g but %g/%g = %.3f", mf.Source, r[0], q, g, c, g/c)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Errorf("%s: no table with solve CPU columns for Go and C++", mf.Source)
	}
}

func TestGridMaxFlow(t *testing.T) {
	for _, tc := range []struct {
		name       string
		side       int
		seed       uint64
		nodes, arc int
	}{
		{"2x2", 2, 1, 4, 4},
		{"16x16", 16, 2, 256, 480},
		{"64x64", 64, 3, 4096, 8064},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGrid(tc.side, tc.seed)
			if g.Nodes() != tc.nodes || g.Edges() != tc.arc {
				t.Fatalf("%d nodes, %d edges; want %d, %d", g.Nodes(), g.Edges(), tc.nodes, tc.arc)
			}
			f := g.MaxFlow()
			// A feasible flow equal to a cut's capacity certifies both
			// optimal (weak duality).
			if cut := CutCapacity(g); math.Abs(f-cut) > 1e-9*math.Max(1, f) {
				t.Errorf("flow %g, cut %g", f, cut)
			}
			g.ResetCapacities()
			GridCapacities(g, tc.side, tc.seed)
			if f2 := g.MaxFlow(); f2 != f {
				t.Errorf("flow after reset %g, first %g", f2, f)
			}
		})
	}
}

func TestUpscaleBilinear(t *testing.T) {
	v := imageio.NewVolume(3, 2, 1, 3)
	for i := range v.Pix {
		v.Pix[i] = float32(i * 10 % 256)
	}
	same, err := UpscaleBilinear(v, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v.Pix {
		if same.Pix[i] != v.Pix[i] {
			t.Fatalf("same-size resize changed sample %d: %g → %g", i, v.Pix[i], same.Pix[i])
		}
	}
	c := imageio.NewVolume(4, 4, 1, 1)
	for i := range c.Pix {
		c.Pix[i] = 77
	}
	up, err := UpscaleBilinear(c, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	if up.Width != 10 || up.Height != 7 {
		t.Fatalf("size %d×%d", up.Width, up.Height)
	}
	for i, p := range up.Pix {
		if p != 77 {
			t.Fatalf("constant image: sample %d is %g", i, p)
		}
	}
	if _, err := UpscaleBilinear(c, 0, 5); err == nil {
		t.Error("no error for a 0×5 target")
	}
}

func TestQPSequence(t *testing.T) {
	sol, sweeps, err := QPSequence(5, 5, 40, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sweeps <= 0 || len(sol.W) != 2*5+4*5 {
		t.Fatalf("sweeps %d, dim %d", sweeps, len(sol.W))
	}
	if sol.Primal < sol.Dual-1e-12 || sol.Gap() > 1e-5 {
		t.Errorf("primal %g dual %g gap %g", sol.Primal, sol.Dual, sol.Gap())
	}
	if sol.RowViolation > 1e-6 {
		t.Errorf("row violation %g", sol.RowViolation)
	}
	if len(sol.Mu) != 20 || len(sol.Alpha) == 0 {
		t.Errorf("%d rows, %d planes", len(sol.Mu), len(sol.Alpha))
	}
}
