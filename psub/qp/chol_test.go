package qp

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestActiveChol drives the updated factor through random entries and
// exits of the free set (many exits at once every tenth round) and checks every solve against a fresh dense solve
// of (K_SS + εI)·x = b in the factor's order.
func TestActiveChol(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const nv, dim = 40, 25 // more vectors than dimensions: K is singular
	vs := make([][]float64, nv)
	for p := range vs {
		vs[p] = make([]float64, dim)
		for i := range vs[p] {
			vs[p][i] = rng.NormFloat64()
		}
	}
	gram := make([][]float64, nv)
	for p := range gram {
		gram[p] = make([]float64, nv)
		for q := range gram[p] {
			for i := range dim {
				gram[p][q] += vs[p][i] * vs[q][i]
			}
		}
	}
	const eps = 1e-3
	c := newActiveChol(&Solver{gram: gram}, eps)
	in := make([]bool, nv)
	for round := 0; round < 300; round++ {
		for k := 0; k < 1+rng.IntN(4); k++ {
			p := rng.IntN(nv)
			in[p] = !in[p]
		}
		if round%10 == 9 { // many leave at once, as after a path step
			for p := range in {
				in[p] = in[p] && rng.IntN(2) == 0
			}
		}
		if !c.sync(in) {
			t.Fatalf("round %d: sync failed with ε = %g", round, eps)
		}
		n := c.n()
		for p := range in {
			if in[p] != (c.pos[p] >= 0) || (c.pos[p] >= 0 && c.ord[c.pos[p]] != p) {
				t.Fatalf("round %d: vector %d: in S %v, position %d", round, p, in[p], c.pos[p])
			}
		}
		if n == 0 {
			continue
		}
		a := mat.NewDense(n, n, nil)
		for i, p := range c.ord {
			for j, q := range c.ord {
				a.Set(i, j, gram[p][q])
			}
			a.Set(i, i, a.At(i, i)+eps)
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		var want mat.VecDense
		if err := want.SolveVec(a, mat.NewVecDense(n, append([]float64(nil), b...))); err != nil {
			t.Fatal(err)
		}
		got := make([]float64, n)
		c.solve(got, b)
		for i := range got {
			if d := math.Abs(got[i] - want.AtVec(i)); d > 1e-8*(1+math.Abs(want.AtVec(i))) {
				t.Fatalf("round %d (n = %d): x[%d] = %.12g, dense solve %.12g", round, n, i, got[i], want.AtVec(i))
			}
		}
		// The packed K_SS kept for the residuals: y = K_SS·x.
		y := make([]float64, n)
		c.mulK(y, got)
		for i, p := range c.ord {
			want := 0.0
			for j, q := range c.ord {
				want += gram[p][q] * got[j]
			}
			if d := math.Abs(y[i] - want); d > 1e-10*(1+math.Abs(want)) {
				t.Fatalf("round %d (n = %d): (K·x)[%d] = %.12g, dense %.12g", round, n, i, y[i], want)
			}
		}
	}
}

// TestRemoveActiveRows keeps one solver through many solves in which rows
// enter, and active rows and planes leave (so the factor the polish keeps
// between solves must follow the renumbering), and compares each optimum
// with a cold solve of the same constraints.
func TestRemoveActiveRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for rep := range 3 {
		pr := randomProblem(rng, 30, 12, 60, 0, 0) // no bounds: the factor's case
		warm, _ := New(pr.dim, pr.c)
		var planes, rows []int // indices into pr of what warm holds, in its order
		nextRow := 0
		for step := 0; step < 40; step++ {
			if len(planes) < len(pr.planes) && (step%3 == 0 || len(planes) == 0) {
				warm.AddPlane(pr.planes[len(planes)], pr.b[len(planes)])
				planes = append(planes, len(planes))
			}
			for k := 0; k < 4 && nextRow < len(pr.rows); k++ {
				warm.AddRow(pr.rows[nextRow])
				rows = append(rows, nextRow)
				nextRow++
			}
			sol, err := warm.Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			cold := &problem{dim: pr.dim, c: pr.c, state: pr.state}
			for _, j := range planes {
				cold.planes, cold.b = append(cold.planes, pr.planes[j]), append(cold.b, pr.b[j])
			}
			for _, k := range rows {
				cold.rows = append(cold.rows, pr.rows[k])
			}
			want, err := cold.solver().Solve(tight)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(sol.Primal-want.Primal) > 1e-8*(1+want.Primal) {
				t.Fatalf("rep %d step %d: warm primal %.12g, cold %.12g", rep, step, sol.Primal, want.Primal)
			}
			checkKKT(t, cold, sol, 1e-6)
			// Drop the first active row (moving the optimum) and one
			// inactive plane if any.
			for k, mu := range sol.Mu {
				if mu > 0 {
					warm.RemoveRows([]int{k})
					rows = append(rows[:k], rows[k+1:]...)
					break
				}
			}
			for j, a := range sol.Alpha {
				if a == 0 && len(planes) > 1 {
					warm.RemovePlanes([]int{j})
					planes = append(planes[:j], planes[j+1:]...)
					break
				}
			}
		}
	}
}
