package slic

import (
	"math"
	"sort"
)

// grid is the regular seed lattice: along axis a (0 = x, 1 = y, 2 = z) the
// seeds sit at start[a], start[a]+step[a], ... below dims[a].
type grid struct {
	dims, start, step, count [3]int
}

// newGrid places about n seeds on a W×H×D lattice with the rule of
// scikit-image's regular_grid: equal steps (N/n)^(1/3) on every axis, except
// that axes shorter than the step get step = their length and the remaining
// axes share the budget; the first seed is at ⌊step/2⌋ and the step is
// rounded half to even.
func newGrid(dims [3]int, n int) grid {
	g := grid{dims: dims}
	total := float64(dims[0]) * float64(dims[1]) * float64(dims[2])
	if total <= float64(n) {
		for a := range 3 {
			g.start[a], g.step[a], g.count[a] = 0, 1, dims[a]
		}
		return g
	}
	// scikit-image orders axes (z, y, x) and sorts them by length (stable).
	order := []int{2, 1, 0}
	sort.SliceStable(order, func(i, j int) bool { return dims[order[i]] < dims[order[j]] })
	var sorted, steps [3]float64
	for i, a := range order {
		sorted[i] = float64(dims[a])
	}
	s := math.Pow(total/float64(n), 1.0/3)
	steps = [3]float64{s, s, s}
	if sorted[0] < steps[0] || sorted[1] < steps[1] || sorted[2] < steps[2] {
		for d := range 3 {
			steps[d] = sorted[d]
			rest := 1.0
			for e := d + 1; e < 3; e++ {
				rest *= sorted[e]
			}
			for e := d + 1; e < 3; e++ {
				steps[e] = math.Pow(rest/float64(n), 1.0/float64(3-d-1))
			}
			if sorted[0] >= steps[0] && sorted[1] >= steps[1] && sorted[2] >= steps[2] {
				break
			}
		}
	}
	for i, a := range order {
		g.start[a] = int(math.Floor(steps[i] / 2))
		g.step[a] = max(1, int(math.RoundToEven(steps[i])))
		g.count[a] = 0
		if g.start[a] < dims[a] {
			g.count[a] = (dims[a]-1-g.start[a])/g.step[a] + 1
		}
	}
	return g
}

// seeds returns the seed positions in index order (x fastest).
func (g grid) seeds() (xs, ys, zs []float64) {
	n := g.count[0] * g.count[1] * g.count[2]
	xs, ys, zs = make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for iz := range g.count[2] {
		for iy := range g.count[1] {
			for ix := range g.count[0] {
				xs = append(xs, float64(g.start[0]+ix*g.step[0]))
				ys = append(ys, float64(g.start[1]+iy*g.step[1]))
				zs = append(zs, float64(g.start[2]+iz*g.step[2]))
			}
		}
	}
	return xs, ys, zs
}

// cell is the index, along axis a, of the seed nearest to coordinate p.
func (g grid) cell(a, p int) int {
	i := int(math.Round(float64(p-g.start[a]) / float64(g.step[a])))
	return min(max(i, 0), g.count[a]-1)
}
