package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

// The primal–dual gap Train reports must hold for the model it returns:
// these tests recompute ½‖w‖² + C·ξ(w) of the returned weights from
// scratch, with their own joint feature map, loss and loss-augmented
// inference by enumeration, and check (primal − dual)/primal ≤ Tol against
// the trace's dual bound.

// refScore is w·ψ(x,y) for untied weights, written out from the paper's
// Kronecker layout (w_α at α·du, w_αβ at L·du + (α·L+β)·dp) without Layout.
func refScore(w []float64, labels int, in *Instance, y []int) float64 {
	du, dp := len(in.Unary[0]), 0
	if len(in.Pairwise) > 0 {
		dp = len(in.Pairwise[0])
	}
	s := 0.0
	for k, u := range in.Unary {
		for j, v := range u {
			s += w[y[k]*du+j] * v
		}
	}
	for e, ed := range in.Edges {
		base := labels*du + (y[ed[0]]*labels+y[ed[1]])*dp
		for j, v := range in.Pairwise[e] {
			s += w[base+j] * v
		}
	}
	return s
}

// refPrimal is ½‖w‖² + C·ξ(w), ξ(w) = mean_i max_y [Δ(y_i,y) + w·ψ(x_i,y) −
// w·ψ(x_i,y_i)] (y = y_i gives 0, so ξ ≥ 0), the maximum by enumerating
// every labelling. classAvg selects the class-averaged loss, a node of class
// c costing 1/(L_present·f_c·N_i) with f_c counted over train; otherwise
// Hamming, 1/N_i per node.
func refPrimal(w []float64, c float64, labels int, train []Instance, classAvg bool) float64 {
	count := make([]float64, labels)
	total := 0.0
	for i := range train {
		for _, y := range train[i].Labels {
			count[y]++
			total++
		}
	}
	present := 0.0
	for _, n := range count {
		if n > 0 {
			present++
		}
	}
	xi := 0.0
	for i := range train {
		in := &train[i]
		n := float64(in.Nodes())
		truth := refScore(w, labels, in, in.Labels)
		worst := 0.0
		allLabellings(in.Nodes(), labels, func(y []int) {
			loss := 0.0
			for k, yk := range y {
				if yk == in.Labels[k] {
					continue
				}
				if classAvg {
					loss += 1 / (present * count[in.Labels[k]] / total * n)
				} else {
					loss += 1 / n
				}
			}
			worst = math.Max(worst, loss+refScore(w, labels, in, y)-truth)
		})
		xi += worst
	}
	xi /= float64(len(train))
	sq := 0.0
	for _, v := range w {
		sq += v * v
	}
	return 0.5*sq + c*xi
}

// gridSet is n planar grid graphs of rows×cols nodes (4-neighbour edges)
// with the labels of smoothSet's kind: a noisy threshold of a smooth field,
// unary features carrying the label with noise, pairwise |φ_k − φ_l|.
func gridSet(rng *rand.Rand, n, rows, cols, du int) []Instance {
	var set []Instance
	for i := 0; i < n; i++ {
		var in Instance
		phase, dir := rng.Float64()*6, rng.Float64()*math.Pi
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				t := float64(r)*math.Cos(dir) + float64(c)*math.Sin(dir)
				y := 0
				if math.Sin(phase+t)+0.4*rng.NormFloat64() > 0 {
					y = 1
				}
				u := make([]float64, du)
				for j := range u {
					u[j] = 0.8*rng.NormFloat64() + boolf(j%2 == y)
				}
				in.Unary, in.Labels = append(in.Unary, u), append(in.Labels, y)
			}
		}
		edge := func(a, b int) {
			p := make([]float64, du)
			for j := range p {
				p[j] = math.Abs(in.Unary[a][j] - in.Unary[b][j])
			}
			in.Edges, in.Pairwise = append(in.Edges, [2]int{a, b}), append(in.Pairwise, p)
		}
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				if c+1 < cols {
					edge(r*cols+c, r*cols+c+1)
				}
				if r+1 < rows {
					edge(r*cols+c, (r+1)*cols+c)
				}
			}
		}
		set = append(set, in)
	}
	return set
}

// refXiCut is max_y [Δ(y_i,y) + w·ψ(x_i,y)] − w·ψ(x_i,y_i) for one binary
// instance with the Hamming loss, by one truncated graph cut on an energy
// built here from w (not by Layout or the learner's normal form). ok is
// false unless the cut's lower bound certifies its minimum to 1e-9: the
// energy must be submodular up to round-off.
func refXiCut(w []float64, in *Instance) (xi float64, ok bool) {
	du, dp := len(in.Unary[0]), len(in.Pairwise[0])
	e := inference.NewEnergy(in.Nodes(), 2, in.Edges)
	n := float64(in.Nodes())
	for k, u := range in.Unary {
		for a := 0; a < 2; a++ {
			s := 0.0
			for j, v := range u {
				s += w[a*du+j] * v
			}
			if a != in.Labels[k] {
				s += 1 / n
			}
			e.Unary[k*2+a] = -s
		}
	}
	for ed, p := range in.Pairwise {
		for ab := 0; ab < 4; ab++ {
			s := 0.0
			for j, v := range p {
				s += w[2*du+ab*dp+j] * v
			}
			e.Pairwise[ed*4+ab] = -s
		}
	}
	r, err := inference.TruncatedGraphCut{}.Minimize(e)
	if err != nil || r.Energy-r.LowerBound > 1e-9*math.Max(1, math.Abs(r.Energy)) {
		return 0, false
	}
	return -r.Energy - refScore(w, 2, in, in.Labels), true
}

// checkReturned checks one training's returned weights against its trace:
// the primal recomputed by primal(w) equals the reported one, and, when
// the stopping rule ended the run, (primal − dual)/primal ≤ Tol. It returns
// whether the primal matched and gap/Tol.
func checkReturned(t *testing.T, name string, m *Model, tr *Trace, tol float64, primal func(w []float64) float64) (bool, float64) {
	t.Helper()
	fin := tr.Final()
	p := primal(m.W)
	same := math.Abs(p-fin.Primal) <= 1e-9*math.Max(1, p)
	if !same {
		t.Errorf("%s: the returned weights' primal is %.9g, the trace reports %.9g (%+.2g relative)",
			name, p, fin.Primal, (p-fin.Primal)/p)
	}
	gap := relGap(p, fin.Dual)
	if tr.Converged && gap > tol*(1+1e-9) {
		t.Errorf("%s (stopped: %v): (primal − dual)/primal of the returned weights is %.3g > Tol %g (primal %.9g, dual %.9g)",
			name, tr.Stop, gap, tol, p, fin.Dual)
	}
	return same, gap / tol
}

// exactVariants are settings whose final stage trains with exact inference
// on binary labels, so that the reported primal is certified.
var exactVariants = []struct {
	name string
	s    Settings
}{
	{"C0", Settings{Set: C0{}}},
	{"C1", Settings{Set: C1{}}},
	{"C2", Settings{Set: C2{}}},
	{"C2*", Settings{Set: C2Star{}}},
	{"C3", Settings{Set: C3{}}},
	{"C4", Settings{Set: C4{}}},
	{"C4 delayed", Settings{Set: C4{}, Delayed: true}},
	{"C4 2-pass", Settings{Set: C4{}, Delayed: true, Pretrain: true}},
	{"C3 minibatches", Settings{Set: C3{}, Minibatches: 3, Tuning: Tuning{AddK: 5}}},
}

// TestReturnedModelPrimal trains binary problems under every set whose
// training-time inference is exact and checks the returned weights by
// enumeration (refPrimal): many seeds, sets, C values, both tolerances and
// both losses, on random graphs and 3×3 planar grids. Before Train returned
// its best iterate, 58 of these 648 runs returned weights whose primal was
// above the reported one, 52 of them with a gap above Tol (up to 3.3·Tol).
func TestReturnedModelPrimal(t *testing.T) {
	seeds := 12
	if testing.Short() {
		seeds = 4
	}
	runs, worst := 0, 0.0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(100+seed), 26))
		var train []Instance
		if seed%2 == 0 {
			train = smoothSet(rng, 4+rng.IntN(6), 6+rng.IntN(3), 3, 2)
		} else {
			train = gridSet(rng, 8+rng.IntN(8), 3, 3, 3)
		}
		for _, v := range exactVariants {
			for _, c := range []float64{1, 10, 50} {
				for _, tol := range []float64{1e-2, 1e-3} {
					classAvg := (seed+int(c))%3 == 0
					s := v.s
					s.C, s.Tol, s.Workers = c, tol, 2
					if classAvg {
						s.Loss = ClassAveraged{}
					}
					name := fmt.Sprintf("seed %d %s C=%g tol=%g class-averaged=%v", seed, v.name, c, tol, classAvg)
					m, tr, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !tr.Converged {
						// These problems converge well within MaxIter.
						t.Errorf("%s: stopped by %v after %d iterations", name, tr.Stop, tr.Iters)
					}
					runs++
					_, r := checkReturned(t, name, m, tr, tol, func(w []float64) float64 {
						return refPrimal(w, c, 2, train, classAvg)
					})
					worst = math.Max(worst, r)
				}
			}
		}
	}
	t.Logf("%d runs; worst gap/Tol of the returned weights %.3f", runs, worst)
}

// TestReturnedModelPrimalPlanar is the setting: 50 planar grid
// graphs, C2*, C = 50, Tol 1e-3 (and C4, C = 10), on 5×5 grids whose
// loss-augmented inference is one certified graph cut per graph.
func TestReturnedModelPrimalPlanar(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	for seed := 0; seed < seeds; seed++ {
		train := gridSet(rand.New(rand.NewPCG(uint64(200+seed), 26)), 50, 5, 5, 3)
		for _, tc := range []struct {
			set ConstraintSet
			c   float64
		}{{C2Star{}, 50}, {C4{}, 10}} {
			const tol = 1e-3
			name := fmt.Sprintf("seed %d %s C=%g", seed, tc.set.Name(), tc.c)
			m, tr, err := Train(train, 2, Settings{Set: tc.set, C: tc.c, Tol: tol, Workers: 2})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !tr.Converged {
				t.Errorf("%s: stopped by %v after %d iterations", name, tr.Stop, tr.Iters)
			}
			checkReturned(t, name, m, tr, tol, func(w []float64) float64 {
				xi, sq := 0.0, 0.0
				for i := range train {
					v, ok := refXiCut(w, &train[i])
					if !ok {
						t.Fatalf("%s: graph %d: the loss-augmented energy is not submodular", name, i)
					}
					xi += v
				}
				for _, v := range w {
					sq += v * v
				}
				return 0.5*sq + tc.c*xi/float64(len(train))
			})
		}
	}
}

// The weights a resumed training returns are its best iterate too, when
// that iterate came before the interruption: a run stopped by MaxIter and
// resumed with no iteration left returns the checkpoint's best weights,
// and one resumed to convergence certifies its gap. Checked by enumeration.
func TestReturnedModelPrimalResumed(t *testing.T) {
	train := gridSet(rand.New(rand.NewPCG(300, 26)), 10, 3, 3, 3)
	const c, tol = 50.0, 1e-3
	primal := func(w []float64) float64 { return refPrimal(w, c, 2, train, false) }
	for _, stop := range []int{2, 5, 9} {
		dir := t.TempDir()
		s := Settings{Set: C2Star{}, C: c, Tol: tol, MaxIter: stop, CheckpointDir: dir}
		m, tr, err := Train(train, 2, s)
		if err != nil || tr.Stop != StopMaxIter {
			t.Fatalf("MaxIter %d: err %v, stop %v; want the iteration cap", stop, err, tr.Stop)
		}
		checkReturned(t, fmt.Sprintf("capped at %d", stop), m, tr, tol, primal)
		// Nothing left to do: the checkpoint's best weights come back.
		again, tr2, err := Train(train, 2, s)
		if err != nil || len(tr2.Resumed) != 1 || tr2.Iters != stop {
			t.Fatalf("resumed with no iteration left: err %v, resumed %v, %d iterations", err, tr2.Resumed, tr2.Iters)
		}
		if !slices.Equal(again.W, m.W) {
			t.Errorf("resumed after %d with no iteration left: the weights differ from the capped run's", stop)
		}
		checkReturned(t, fmt.Sprintf("resumed at %d, no iteration", stop), again, tr2, tol, primal)
		s.MaxIter = 0
		m, tr, err = Train(train, 2, s)
		if err != nil || !tr.Converged || len(tr.Resumed) != 1 {
			t.Fatalf("resumed after %d: err %v, stop %v, resumed %v", stop, err, tr.Stop, tr.Resumed)
		}
		checkReturned(t, fmt.Sprintf("resumed after %d", stop), m, tr, tol, primal)
	}
}
