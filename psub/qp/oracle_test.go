package qp

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// problem is a QP instance in plain form, used to build Solvers and to feed
// the brute-force oracle.
type problem struct {
	dim    int
	c      float64
	planes [][]float64
	b      []float64
	rows   [][]float64
	state  []int8 // per coordinate: free, lower, upper or fixed
}

func (pr *problem) solver() *Solver {
	s, err := New(pr.dim, pr.c)
	if err != nil {
		panic(err)
	}
	for i := range pr.state {
		pr.constrain(s, i)
	}
	pr.addVectors(s)
	return s
}

// constrain applies coordinate i's bound or fix to s.
func (pr *problem) constrain(s *Solver, i int) {
	switch st := pr.state[i]; st {
	case fixed:
		s.Fix(i)
	case lower, upper:
		s.Bound(i, int(st))
	}
}

// addVectors adds the problem's planes and rows to s.
func (pr *problem) addVectors(s *Solver) {
	for j, a := range pr.planes {
		s.AddPlane(a, pr.b[j])
	}
	for _, g := range pr.rows {
		s.AddRow(g)
	}
}

// randomProblem draws a problem with the given sizes; every coordinate is
// free, sign-bounded or fixed with the given probabilities.
func randomProblem(rng *rand.Rand, dim, planes, rows int, pBound, pFix float64) *problem {
	pr := &problem{dim: dim, c: 0.1 + 10*rng.Float64(), state: make([]int8, dim)}
	for i := range pr.state {
		switch u := rng.Float64(); {
		case u < pFix:
			pr.state[i] = fixed
		case u < pFix+pBound/2:
			pr.state[i] = lower
		case u < pFix+pBound:
			pr.state[i] = upper
		}
	}
	for range planes {
		a := make([]float64, dim)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		pr.planes = append(pr.planes, a)
		pr.b = append(pr.b, 2*rng.Float64())
	}
	for range rows {
		g := make([]float64, dim)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		pr.rows = append(pr.rows, g)
	}
	return pr
}

// bruteForce solves the primal QP over x = (w, ξ) by enumerating every subset
// of the inequality constraints as the active set: for each subset it solves
// the equality-constrained QP (KKT linear system) and keeps the best point
// that satisfies all constraints. The optimum of a convex QP is the minimiser
// over the affine hull of its own active set, so the best feasible candidate
// is optimal. Exponential: only for tiny problems.
func bruteForce(pr *problem) (w []float64, xi, obj float64, ok bool) {
	d := pr.dim
	n := d + 1 // x = (w, ξ)
	type lin struct {
		a   []float64
		rhs float64
	}
	var eqs, ineqs []lin
	for i, st := range pr.state {
		e := make([]float64, n)
		switch st {
		case fixed:
			e[i] = 1
			eqs = append(eqs, lin{e, 0})
		case lower, upper:
			e[i] = float64(st)
			ineqs = append(ineqs, lin{e, 0})
		}
	}
	for j, a := range pr.planes {
		e := make([]float64, n)
		copy(e, a)
		e[d] = 1
		ineqs = append(ineqs, lin{e, pr.b[j]})
	}
	xiRow := make([]float64, n)
	xiRow[d] = 1
	ineqs = append(ineqs, lin{xiRow, 0})
	for _, g := range pr.rows {
		e := make([]float64, n)
		copy(e, g)
		ineqs = append(ineqs, lin{e, 0})
	}
	obj = math.Inf(1)
	for mask := 0; mask < 1<<len(ineqs); mask++ {
		act := append([]lin(nil), eqs...)
		for t := range ineqs {
			if mask&(1<<t) != 0 {
				act = append(act, ineqs[t])
			}
		}
		m := len(act)
		if m > n {
			continue
		}
		// [H Aᵀ; A 0] [x; λ] = [−c; rhs], H = diag(1,…,1,0), c = (0,…,0,C).
		kkt := mat.NewDense(n+m, n+m, nil)
		rhs := mat.NewVecDense(n+m, nil)
		for i := 0; i < d; i++ {
			kkt.Set(i, i, 1)
		}
		rhs.SetVec(d, -pr.c)
		for r, l := range act {
			for i, x := range l.a {
				kkt.Set(n+r, i, x)
				kkt.Set(i, n+r, x)
			}
			rhs.SetVec(n+r, l.rhs)
		}
		var lu mat.LU
		lu.Factorize(kkt)
		if lu.Cond() > 1e10 {
			continue
		}
		var x mat.VecDense
		if err := lu.SolveVecTo(&x, false, rhs); err != nil {
			continue
		}
		feasible := true
		for _, l := range ineqs {
			s := 0.0
			for i, a := range l.a {
				s += a * x.AtVec(i)
			}
			if s < l.rhs-1e-9 {
				feasible = false
				break
			}
		}
		if !feasible {
			continue
		}
		o := pr.c * x.AtVec(d)
		for i := 0; i < d; i++ {
			o += 0.5 * x.AtVec(i) * x.AtVec(i)
		}
		if o < obj {
			obj, xi, ok = o, x.AtVec(d), true
			w = make([]float64, d)
			for i := range w {
				w[i] = x.AtVec(i)
			}
		}
	}
	return w, xi, obj, ok
}
