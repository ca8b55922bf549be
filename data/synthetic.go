package data

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/probably-submodular/crf/psub"
)

// SegmentationOptions sets the synthetic segmentation problem. The zero
// value is the embedded default used by the quick profile and the tests.
type SegmentationOptions struct {
	Seed        uint64
	Train, Test int // number of images; 0 means 20 each
	// MinSide, MaxSide bound the side of each image's node grid (drawn
	// uniformly per image and axis); 0 means 10 and 16 (100–256 nodes).
	MinSide, MaxSide int
	// UnaryNoise is the standard deviation of the unary evidence around
	// ±0.5 (0 means 1.2: about 66% of nodes right on their own).
	UnaryNoise float64
	// CueRate is the probability that an interior edge carries its
	// "inside foreground" / "inside background" cue (0 means 0.15).
	CueRate float64
	// ContrastNoise is the standard deviation of the hidden intensity
	// around 0 (background) and 1.5 (foreground) (0 means 0.3).
	ContrastNoise float64
}

func (o SegmentationOptions) withDefaults() SegmentationOptions {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Train, 20)
	def(&o.Test, 20)
	def(&o.MinSide, 10)
	def(&o.MaxSide, 16)
	if o.UnaryNoise == 0 {
		o.UnaryNoise = 1.2
	}
	if o.CueRate == 0 {
		o.CueRate = 0.15
	}
	if o.ContrastNoise == 0 {
		o.ContrastNoise = 0.3
	}
	return o
}

// Segmentation is a synthetic binary segmentation data set: region graphs
// with node positions (for drawing).
type Segmentation struct {
	Train, Test       []psub.Instance
	TrainPos, TestPos [][][2]float64 // node centres per image, in grid units
	Options           SegmentationOptions
}

// Feature layout of the synthetic segmentation problem.
const (
	// SegUnaryDim: [1, evidence, distractor].
	SegUnaryDim = 3
	// SegPairwiseDim: [1, contrast, fg cue, bg cue], all ≥ 0.
	SegPairwiseDim = 4
)

// SyntheticSegmentation generates a superpixel-style binary segmentation
// problem (label 1 = foreground) in which the pairwise features carry
// information the unaries lack, built so that each constraint set of the
// ladder C0 ⊂ C1 ⊂ C2 ⊆ C4 has something more to use:
//
//   - Graph: a jittered grid of nodes (10–16 per side) with 4-neighbour
//     edges and one random diagonal per cell (planar, like a superpixel
//     adjacency graph). Foreground: one to three random ellipses.
//   - Unary [1, e, z]: e = ±0.5 + N(0, UnaryNoise²) for fg/bg, z pure noise.
//     Weak on purpose: C0 (unaries alone) labels about two nodes in three.
//   - Pairwise [1, c, f, b], all ≥ 0:
//     1 is a constant: under C1 (w_ab, w_ba ≤ 0, w_aa = w_bb = 0) it buys
//     uniform Potts smoothing, which already beats C0.
//     c = min(|g_k − g_l|, 1) is the contrast of a hidden intensity g that
//     jumps by 1.5 across the fg boundary (noise 0.1): a dissimilarity, as
//     the paper's |φ_k − φ_l|, near 1 on boundary edges. C1 and C2 can only
//     make label changes costlier where c is large (the wrong way); C4 can
//     give the coupling w_aa + w_bb − w_ab − w_ba a negative coefficient on
//     c offset by the constant, since 1 − c ≥ 0 on every edge: smoothing
//     that switches off at boundaries, so each region is labelled by the
//     pooled evidence of all its nodes.
//     f (b) is a cue present on a random CueRate of the edges inside the
//     foreground (background): C2's w_11 ≥ 0 (w_00 ≥ 0) rewards both ends
//     being foreground (background) there, label evidence that C1, which
//     can only penalise changes, cannot turn into a preference.
//
// Each image draws from its own stream (seed, image index), so the same seed
// gives the same data, and changing Train or Test does not change the other
// images.
func SyntheticSegmentation(opt SegmentationOptions) *Segmentation {
	opt = opt.withDefaults()
	s := &Segmentation{Options: opt}
	for i := range opt.Train {
		in, pos := segImage(rand.New(rand.NewPCG(opt.Seed, uint64(i))), opt)
		in.Name = fmt.Sprintf("synthetic-train-%03d", i)
		s.Train, s.TrainPos = append(s.Train, in), append(s.TrainPos, pos)
	}
	for i := range opt.Test {
		in, pos := segImage(rand.New(rand.NewPCG(opt.Seed, 1<<32|uint64(i))), opt)
		in.Name = fmt.Sprintf("synthetic-test-%03d", i)
		s.Test, s.TestPos = append(s.Test, in), append(s.TestPos, pos)
	}
	return s
}

func segImage(rng *rand.Rand, opt SegmentationOptions) (psub.Instance, [][2]float64) {
	side := func() int { return opt.MinSide + rng.IntN(opt.MaxSide-opt.MinSide+1) }
	w, h := side(), side()
	n := w * h
	pos := make([][2]float64, n)
	for y := range h {
		for x := range w {
			pos[y*w+x] = [2]float64{float64(x) + 0.3*(rng.Float64()-0.5), float64(y) + 0.3*(rng.Float64()-0.5)}
		}
	}
	// Foreground: a union of ellipses, redrawn until it covers 15–50%.
	labels := make([]int, n)
	for {
		for k := range labels {
			labels[k] = 0
		}
		blobs := 1 + rng.IntN(3)
		for range blobs {
			cx, cy := rng.Float64()*float64(w-1), rng.Float64()*float64(h-1)
			rx, ry := 1.5+rng.Float64()*float64(w)/4, 1.5+rng.Float64()*float64(h)/4
			th := rng.Float64() * math.Pi
			ct, st := math.Cos(th), math.Sin(th)
			for k, p := range pos {
				dx, dy := p[0]-cx, p[1]-cy
				u, v := (dx*ct+dy*st)/rx, (-dx*st+dy*ct)/ry
				if u*u+v*v <= 1 {
					labels[k] = 1
				}
			}
		}
		fg := 0
		for _, y := range labels {
			fg += y
		}
		if f := float64(fg) / float64(n); f >= 0.15 && f <= 0.5 {
			break
		}
	}
	in := psub.Instance{Labels: labels, Unary: make([][]float64, n)}
	g := make([]float64, n)
	for k, y := range labels {
		e := float64(y) - 0.5 + opt.UnaryNoise*rng.NormFloat64()
		in.Unary[k] = []float64{1, e, rng.NormFloat64()}
		g[k] = 1.5*float64(y) + opt.ContrastNoise*rng.NormFloat64()
	}
	addEdge := func(a, b int) {
		c := math.Min(math.Abs(g[a]-g[b]), 1)
		var f, bg float64
		if labels[a] == labels[b] && rng.Float64() < opt.CueRate {
			cue := 0.5 + 0.5*rng.Float64()
			if labels[a] == 1 {
				f = cue
			} else {
				bg = cue
			}
		}
		in.Edges = append(in.Edges, [2]int{a, b})
		in.Pairwise = append(in.Pairwise, []float64{1, c, f, bg})
	}
	for y := range h {
		for x := range w {
			k := y*w + x
			if x+1 < w {
				addEdge(k, k+1)
			}
			if y+1 < h {
				addEdge(k, k+w)
			}
			if x+1 < w && y+1 < h {
				if rng.IntN(2) == 0 {
					addEdge(k, k+w+1)
				} else {
					addEdge(k+1, k+w)
				}
			}
		}
	}
	return in, pos
}

// SyntheticMultiLabelOptions sets the synthetic multi-label problem. The
// zero value is the embedded default.
type SyntheticMultiLabelOptions struct {
	Seed        uint64
	Train, Test int // examples; 0 means 200 each
	Features    int // d; 0 means 12
	Labels      int // |C|; 0 means 5
}

// SyntheticMultiLabel generates a small multi-label problem whose label
// correlations carry information the unaries cannot use. Feature j of x is
// N(0, σ_j²) with σ_j decreasing (2, 1.7, 1.45, ...), so the principal axes
// are the coordinate axes. Labels come in pairs: labels 2g and 2g+1 are both
// "on" when |x_g| > 0.8·σ_g (each flipped with probability 0.1); an odd last
// label is a noisy linear threshold. A pair's trigger is not linear in x, so
// unaries (C0, and C1, which can only penalise disagreement) do little
// better than the majority, but R(x) = max(x̃,0) ⊕ max(−x̃,0) contains |x̃_g|,
// so a reward for "both on" on edge (2g, 2g+1) growing with |x̃_g| (C2, C4)
// recovers the pair. Example i of train (test) draws from stream (seed, i)
// (seed, 2³²+i).
func SyntheticMultiLabel(opt SyntheticMultiLabelOptions) (train, test *MultiLabelSet) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&opt.Train, 200)
	def(&opt.Test, 200)
	def(&opt.Features, 12)
	def(&opt.Labels, 5)
	d, nl := opt.Features, opt.Labels
	sigma := make([]float64, d)
	for j := range sigma {
		sigma[j] = 2 * math.Pow(0.85, float64(j))
	}
	// The linear label's direction comes from its own stream.
	mrng := rand.New(rand.NewPCG(opt.Seed, 1<<40))
	a := make([]float64, d)
	for j := range a {
		a[j] = mrng.NormFloat64() / math.Sqrt(float64(d))
	}
	mk := func(name string, n int, stream uint64) *MultiLabelSet {
		s := &MultiLabelSet{Name: name}
		for j := range d {
			s.FeatureNames = append(s.FeatureNames, fmt.Sprintf("x%d", j+1))
		}
		for k := range nl {
			s.LabelNames = append(s.LabelNames, fmt.Sprintf("label%d", k+1))
		}
		for i := range n {
			rng := rand.New(rand.NewPCG(opt.Seed, stream+uint64(i)))
			x := make([]float64, d)
			for j := range x {
				x[j] = sigma[j] * rng.NormFloat64()
			}
			y := make([]int, nl)
			for k := range nl {
				if g := k / 2; 2*g+1 < nl && g < d {
					if math.Abs(x[g]) > 0.8*sigma[g] {
						y[k] = 1
					}
					if rng.Float64() < 0.1 {
						y[k] = 1 - y[k]
					}
					continue
				}
				s := 0.0
				for j := range x {
					s += a[j] * x[j]
				}
				if s+0.3*rng.NormFloat64() > 0 {
					y[k] = 1
				}
			}
			s.X, s.Y = append(s.X, x), append(s.Y, y)
		}
		return s
	}
	return mk("synthetic-multilabel-train", opt.Train, 0), mk("synthetic-multilabel-test", opt.Test, 1<<32)
}
