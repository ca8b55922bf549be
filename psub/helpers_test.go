package psub

import (
	"math"
	"math/rand/v2"
)

// randomInstance is a connected random graph (a path plus random chords)
// with Gaussian unary features and |·|-of-Gaussian (non-negative) pairwise
// features, labels uniform.
func randomInstance(rng *rand.Rand, nodes, extra, du, dp, labels int) Instance {
	in := Instance{}
	for k := 0; k < nodes; k++ {
		row := make([]float64, du)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		in.Unary = append(in.Unary, row)
		in.Labels = append(in.Labels, rng.IntN(labels))
	}
	seen := map[[2]int]bool{}
	add := func(a, b int) {
		if a == b || seen[[2]int{a, b}] || seen[[2]int{b, a}] {
			return
		}
		seen[[2]int{a, b}] = true
		in.Edges = append(in.Edges, [2]int{a, b})
		p := make([]float64, dp)
		for j := range p {
			p[j] = math.Abs(rng.NormFloat64())
		}
		in.Pairwise = append(in.Pairwise, p)
	}
	for k := 1; k < nodes; k++ {
		add(k-1, k)
	}
	for t := 0; t < extra; t++ {
		add(rng.IntN(nodes), rng.IntN(nodes))
	}
	return in
}

// smoothSet is a learnable random problem: labels from a noisy threshold
// of a smooth signal along a path with chords, unary features that carry
// the label with noise, pairwise features |φ_k − φ_l| on a few coordinates.
func smoothSet(rng *rand.Rand, n, nodes, du, labels int) []Instance {
	var set []Instance
	for i := 0; i < n; i++ {
		in := randomInstance(rng, nodes, nodes/2, du, du, labels)
		phase := rng.Float64() * 6
		for k := range in.Labels {
			in.Labels[k] = int(math.Floor(float64(labels)*(0.5+0.5*math.Sin(phase+float64(k)/3)))) % labels
			for j := range in.Unary[k] {
				in.Unary[k][j] = 0.8*rng.NormFloat64() + boolf(j%labels == in.Labels[k])
			}
		}
		for e, ed := range in.Edges {
			for j := range in.Pairwise[e] {
				in.Pairwise[e][j] = math.Abs(in.Unary[ed[0]][j] - in.Unary[ed[1]][j])
			}
		}
		set = append(set, in)
	}
	return set
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func randomW(rng *rand.Rand, n int) []float64 {
	w := make([]float64, n)
	for i := range w {
		w[i] = rng.NormFloat64()
	}
	return w
}

// allLabellings calls f with every labelling of n nodes (reusing y).
func allLabellings(n, labels int, f func(y []int)) {
	y := make([]int, n)
	for {
		f(y)
		k := 0
		for k < n && y[k] == labels-1 {
			y[k] = 0
			k++
		}
		if k == n {
			return
		}
		y[k]++
	}
}
