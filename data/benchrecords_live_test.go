package data

import (
	"math"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

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
