package inference

import (
	"fmt"
	"math"
)

// ICM is iterated conditional modes (Besag 1986): sweep the nodes in index
// order, set each to the label of least local cost given its neighbours, until
// a sweep changes nothing or MaxIter sweeps are done. The result is a local
// minimum w.r.t. single-node changes. Ties keep the current label.
type ICM struct {
	// MaxIter bounds the number of sweeps; 0 means 100.
	MaxIter int
	// Init is the starting labelling; nil means the unary argmin.
	Init []int
}

// Name implements Method.
func (ICM) Name() string { return "icm" }

// Minimize implements Method.
func (m ICM) Minimize(e *Energy) (Result, error) {
	if err := e.Validate(); err != nil {
		return Result{}, fmt.Errorf("icm: %w", err)
	}
	y := make([]int, e.Nodes())
	if m.Init != nil {
		if err := e.CheckLabels(m.Init); err != nil {
			return Result{}, fmt.Errorf("icm: Init: %w", err)
		}
		copy(y, m.Init)
	} else {
		unaryArgmin(e, y)
	}
	maxIter := m.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	adj := newAdjacency(e.Nodes(), e.Edges)
	it := icmSweeps(e, adj, y, nil, maxIter)
	r := finish(e, y)
	r.Iterations = it
	return r, nil
}

// icmSweeps improves y by ICM over the nodes in free (all nodes if free is
// nil) and returns the number of sweeps done.
func icmSweeps(e *Energy, adj adjacency, y []int, free []int, maxIter int) int {
	n := e.Nodes()
	for it := 1; it <= maxIter; it++ {
		changed := false
		visit := func(i int) {
			cur := y[i]
			bestK, best := cur, e.localCost(adj, y, i, cur)
			for k := 0; k < e.Labels; k++ {
				if k == cur {
					continue
				}
				if c := e.localCost(adj, y, i, k); c < best {
					bestK, best = k, c
				}
			}
			if bestK != cur {
				y[i] = bestK
				changed = true
			}
		}
		if free == nil {
			for i := 0; i < n; i++ {
				visit(i)
			}
		} else {
			for _, i := range free {
				visit(i)
			}
		}
		if !changed {
			return it
		}
	}
	return maxIter
}

func unaryArgmin(e *Energy, y []int) {
	L := e.Labels
	for i := range y {
		best, bk := math.Inf(1), 0
		for k := 0; k < L; k++ {
			if v := e.Unary[i*L+k]; v < best {
				best, bk = v, k
			}
		}
		y[i] = bk
	}
}
