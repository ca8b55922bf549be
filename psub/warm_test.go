package psub

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warmCheck compares a warm-started training with a cold one of the same
// problem, with the enumerated primal (refPrimal) as the oracle: both are
// converged, each one's certified dual bound is at most the other's
// enumerated primal (a warm plane that is not a valid lower bound lifts
// the warm dual above the optimum, hence above the cold primal), and the
// warm weights are within 2·Tol of the cold fit's dual bound (each fit is
// within Tol of the optimum, from either side).
func warmCheck(t *testing.T, name string, tol float64, cold, warm *Trace, mc, mw *Model, primal func([]float64) float64) {
	t.Helper()
	if !cold.Converged || !warm.Converged {
		t.Errorf("%s: converged cold %v (%s), warm %v (%s)", name, cold.Converged, cold.Status(), warm.Converged, warm.Status())
		return
	}
	pc, pw := primal(mc.W), primal(mw.W)
	dc, dw := cold.Final().Dual, warm.Final().Dual
	if math.Abs(pw-warm.Final().Primal) > 1e-9*math.Max(1, pw) {
		t.Errorf("%s: warm weights' primal %.9g, trace says %.9g", name, pw, warm.Final().Primal)
	}
	if dw > pc*(1+1e-9) {
		t.Errorf("%s: warm dual bound %.9g above the cold fit's primal %.9g: a warm plane is not a lower bound", name, dw, pc)
	}
	if dc > pw*(1+1e-9) {
		t.Errorf("%s: cold dual bound %.9g above the warm fit's primal %.9g", name, dc, pw)
	}
	if g := relGap(pw, dc); g > 2*tol*(1+1e-9) {
		t.Errorf("%s: warm primal %.9g is %.3g above the cold dual bound %.9g, want ≤ 2·Tol = %g", name, pw, g, dc, 2*tol)
	}
}

// TestWarmStartAlongC trains chains of increasing C cold and warm (each
// warm fit starting from the previous warm fit's working set) under every
// exactly trained set and both losses, and checks every warm fit against
// its cold twin and the enumeration oracle (warmCheck).
func TestWarmStartAlongC(t *testing.T) {
	seeds := 4
	if testing.Short() {
		seeds = 2
	}
	cs := []float64{0.5, 2, 10, 50}
	coldIt, warmIt := 0, 0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(300+seed), 31))
		var train []Instance
		if seed%2 == 0 {
			train = smoothSet(rng, 5+rng.IntN(4), 7, 3, 2)
		} else {
			train = gridSet(rng, 8, 3, 3, 3)
		}
		test := smoothSet(rng, 2, 6, 3, 2)
		if seed%2 == 1 {
			test = gridSet(rng, 2, 3, 3, 3)
		}
		variants := append(exactVariants[:len(exactVariants):len(exactVariants)],
			struct {
				name string
				s    Settings
			}{"C4bar", Settings{Set: C4Bar{Test: test}, Delayed: true}})
		for _, v := range variants {
			for _, classAvg := range []bool{false, true} {
				var prev *WorkingSet
				for _, c := range cs {
					s := v.s
					s.C, s.Tol, s.Workers = c, 1e-3, 1
					if classAvg {
						s.Loss = ClassAveraged{}
					}
					name := fmt.Sprintf("seed %d %s C=%g class-averaged=%v", seed, v.name, c, classAvg)
					mc, cold, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s cold: %v", name, err)
					}
					s.Warm = prev
					mw, warm, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s warm: %v", name, err)
					}
					warmCheck(t, name, s.Tol, cold, warm, mc, mw, func(w []float64) float64 { return refPrimal(w, c, 2, train, classAvg) })
					if prev != nil {
						st := warm.Warm
						switch {
						case st == nil:
							t.Errorf("%s: no warm statistics", name)
						case st.Planes != len(prev.Planes) || st.PlanesDropped != 0 || st.Recosted != 0 || st.Completed != 0 || st.FromC != prev.C:
							t.Errorf("%s: warm start took %d planes (dropped %d, re-costed %d, completed %d) from C = %g, want all %d as they are from C = %g",
								name, st.Planes, st.PlanesDropped, st.Recosted, st.Completed, st.FromC, len(prev.Planes), prev.C)
						case st.Hard+st.HardDropped != len(prev.Hard) || (len(s.stagesFor()) == 1 && st.HardDropped != 0):
							t.Errorf("%s: warm start took %d hard constraints, dropped %d, of %d", name, st.Hard, st.HardDropped, len(prev.Hard))
						}
						coldIt += cold.Iters
						warmIt += warm.Iters
					}
					prev = warm.Working
				}
			}
		}
	}
	t.Logf("fits after the first C of each chain: %d iterations cold, %d warm", coldIt, warmIt)
}

// stagesFor is how many stages Settings trains in (1 unless pretraining
// or minibatches).
func (s Settings) stagesFor() []int {
	n := 1
	if s.Pretrain {
		n++
	}
	if s.Minibatches > 1 {
		n += s.Minibatches - 1
	}
	return make([]int, n)
}

// TestWarmStartSuperset trains on part of a training set and warm-starts
// the training on the whole set from it (the selection fit to the final
// fit): with Hamming, whose node costs depend only on the instance, the
// planes carry over scaled by |S|/|T|; with the class-averaged loss the
// costs change with the class frequencies of the set, and the planes carry
// over re-costed from their tallies. The hard constraints carry over in
// both. Instances have 6–8 nodes, so that costs differ between instances.
func TestWarmStartSuperset(t *testing.T) {
	coldIt, warmIt := map[bool]int{}, map[bool]int{}
	for seed := 0; seed < 3; seed++ {
		rng := rand.New(rand.NewPCG(uint64(400+seed), 32))
		all := mixedSet(rng)
		perm := rng.Perm(len(all))
		sub := make([]Instance, 6)
		where := make([]int, 6)
		for k := range sub {
			sub[k], where[k] = all[perm[k]], perm[k]
		}
		for _, v := range []struct {
			name string
			s    Settings
		}{{"C2", Settings{Set: C2{}}}, {"C4", Settings{Set: C4{}, Delayed: true}}, {"C3", Settings{Set: C3{}}},
			{"C4 cache", Settings{Set: C4{}, Delayed: true, Tuning: Tuning{Cache: 5}}}} {
			for _, classAvg := range []bool{false, true} {
				s := v.s
				s.C, s.Tol, s.Workers = 10, 1e-3, 1
				if classAvg {
					s.Loss = ClassAveraged{}
				}
				name := fmt.Sprintf("seed %d %s class-averaged=%v", seed, v.name, classAvg)
				_, part, err := Train(sub, 2, s)
				if err != nil {
					t.Fatal(err)
				}
				mc, cold, err := Train(all, 2, s)
				if err != nil {
					t.Fatal(err)
				}
				s.Warm, s.WarmInstances = part.Working, where
				mw, warm, err := Train(all, 2, s)
				if err != nil {
					t.Fatal(err)
				}
				warmCheck(t, name, s.Tol, cold, warm, mc, mw, func(w []float64) float64 { return refPrimal(w, s.C, 2, all, classAvg) })
				st := warm.Warm
				wantRecosted := 0
				if classAvg {
					wantRecosted = len(part.Working.Planes)
				}
				if st.Planes != len(part.Working.Planes) || st.PlanesDropped != 0 || st.Recosted != wantRecosted {
					t.Errorf("%s: took %d of %d planes (dropped %d), re-costed %d, want all, %d re-costed", name, st.Planes, len(part.Working.Planes), st.PlanesDropped, st.Recosted, wantRecosted)
				}
				if st.Completed != st.Planes && warm.Iters > 1 {
					t.Errorf("%s: %d of %d carried planes completed on the new instances", name, st.Completed, st.Planes)
				}
				checkTallies(t, name+" selection", sub, s, part.Working)
				checkTallies(t, name, all, s, warm.Working)
				coldIt[classAvg] += cold.Iters
				warmIt[classAvg] += warm.Iters
				if st.Hard != len(part.Working.Hard) {
					t.Errorf("%s: took %d of %d hard constraints", name, st.Hard, len(part.Working.Hard))
				}
			}
		}
	}
	t.Logf("superset fits, iterations cold/warm: Hamming %d/%d, class-averaged %d/%d", coldIt[false], warmIt[false], coldIt[true], warmIt[true])
}

// checkTallies checks that every plane of ws, the working set of a
// training on train with settings s, has a tally that gives its offset
// back under the training's costs.
func checkTallies(t *testing.T, name string, train []Instance, s Settings, ws *WorkingSet) {
	t.Helper()
	tr, err := newTrainer(train, 2, s)
	if err != nil {
		t.Fatal(err)
	}
	cost, nodes := tr.classCosts()
	for j, p := range ws.Planes {
		b, err := tr.recost(p.Tally, cost, nodes)
		if p.Tally == nil || err != nil || math.Abs(b-p.B) > 1e-12*math.Max(1, p.B) {
			t.Errorf("%s: plane %d: offset %.15g, from its tally %.15g (%v)", name, j, p.B, b, err)
		}
	}
}

// mixedSet is 9 instances of smoothSet's kind with 6, 7 and 8 nodes, so
// that every loss's node costs differ between instances.
func mixedSet(rng *rand.Rand) []Instance {
	var all []Instance
	for _, nodes := range []int{6, 7, 8} {
		all = append(all, smoothSet(rng, 3, nodes, 3, 2)...)
	}
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all
}

// refCosts are the node costs of set computed here, independently of
// Loss.NodeCosts: 1/N_i (Hamming) or 1/(L_present·f_c·N_i) with f_c
// counted over set (class-averaged), as refPrimal has them.
func refCosts(set []Instance, labels int, classAvg bool) [][]float64 {
	count, total := make([]float64, labels), 0.0
	for i := range set {
		for _, y := range set[i].Labels {
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
	out := make([][]float64, len(set))
	for i := range set {
		n := float64(set[i].Nodes())
		for _, y := range set[i].Labels {
			c := 1 / n
			if classAvg {
				c = 1 / (present * count[y] / total * n)
			}
			out[i] = append(out[i], c)
		}
	}
	return out
}

// TestWarmRecostedPlanes checks the planes a warm start builds on a
// superset T from a subset S's working set against the planes computed
// directly on T: for random labellings ŷ_k of S's instances it makes S's
// planes (a = mean δψ, b = mean Δ under S's costs, the tally), starts a
// training on T from them and compares every plane in T's QP with
// a = Σ_k δψ_k/|T| and b = Σ_k Δ_T(y_k, ŷ_k)/|T| under T's costs (refCosts),
// for every pair of losses (re-costed across losses too, and scaled as
// they are for Hamming to Hamming); after one iteration, each carried
// plane's completion against T's plane of its labellings on S and the
// first inference's elsewhere. It also checks that the tallies a real
// training records give back its planes' offsets under its own costs, and
// (also after pruning), and that costs that differ between nodes of one
// class leave the planes out.
func TestWarmRecostedPlanes(t *testing.T) {
	const labels = 2
	rng := rand.New(rand.NewPCG(9, 35))
	all := mixedSet(rng)
	perm := rng.Perm(len(all))
	sub, where := make([]Instance, 6), make([]int, 6)
	for k := range sub {
		sub[k], where[k] = all[perm[k]], perm[k]
	}
	loss := map[bool]Loss{false: Hamming{}, true: ClassAveraged{}}
	for _, fromAvg := range []bool{false, true} {
		// A real training's tallies give its offsets back, also after it
		// pruned planes (a short InactiveWindow).
		s := Settings{Set: C4{}, C: 10, Tol: 1e-4, Workers: 2, Loss: loss[fromAvg], Tuning: Tuning{InactiveWindow: 2}}
		_, part, err := Train(sub, labels, s)
		if err != nil {
			t.Fatal(err)
		}
		if part.PlanesRemoved == 0 {
			t.Errorf("from class-averaged %v: no plane pruned; the test needs some", fromAvg)
		}
		checkTallies(t, fmt.Sprintf("from class-averaged %v", fromAvg), sub, s, part.Working)
		ts, err := newTrainer(sub, labels, s)
		if err != nil {
			t.Fatal(err)
		}
		// Planes of known labellings on S.
		costS := refCosts(sub, labels, fromAvg)
		ws := *part.Working
		ws.Planes = nil
		var yhat [][][]int
		for j := 0; j < 5; j++ {
			p := WarmPlane{A: make([]float64, ts.layout.Dim()), Tally: make([]int32, len(sub)*labels), Alpha: rng.Float64()}
			var ys [][]int
			for k := range sub {
				y := sub[k].Labels
				z := make([]int, len(y))
				for v := range z {
					z[v] = y[v]
					if rng.IntN(3) == 0 {
						z[v] = 1 - y[v]
					}
				}
				ts.layout.featureDiff(p.A, &sub[k], &ts.feats[k], y, z)
				for v := range z {
					if z[v] != y[v] {
						p.B += costS[k][v]
						p.Tally[k*labels+y[v]]++
					}
				}
				ys = append(ys, z)
			}
			for i := range p.A {
				p.A[i] /= float64(len(sub))
			}
			p.B /= float64(len(sub))
			ws.Planes = append(ws.Planes, p)
			yhat = append(yhat, ys)
		}
		for _, toAvg := range []bool{false, true} {
			name := fmt.Sprintf("class-averaged %v to %v", fromAvg, toAvg)
			s := s
			s.Loss, s.Warm, s.WarmInstances = loss[toAvg], &ws, where
			s.Tuning = Tuning{} // no pruning within the one iteration
			tt, err := newTrainer(all, labels, s)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.warmStart(); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			st := tt.trace.Warm
			wantRecosted := len(ws.Planes)
			if !fromAvg && !toAvg {
				wantRecosted = 0
			}
			if st.Planes != len(ws.Planes) || st.Recosted != wantRecosted || tt.qp.Planes() != len(ws.Planes) {
				t.Errorf("%s: %+v with %d planes in the QP, want %d planes, %d re-costed", name, *st, tt.qp.Planes(), len(ws.Planes), wantRecosted)
				continue
			}
			costT := refCosts(all, labels, toAvg)
			// plane is T's plane of labellings z[i] (the truth where nil).
			plane := func(z [][]int) ([]float64, float64) {
				a := make([]float64, tt.layout.Dim())
				b := 0.0
				for i := range all {
					if z[i] == nil {
						continue
					}
					tt.layout.featureDiff(a, &all[i], &tt.feats[i], all[i].Labels, z[i])
					for v, zv := range z[i] {
						if zv != all[i].Labels[v] {
							b += costT[i][v]
						}
					}
				}
				for i := range a {
					a[i] /= float64(len(all))
				}
				for _, i := range tt.spec.fixed {
					a[i] = 0
				}
				return a, b / float64(len(all))
			}
			same := func(what string, j int, a []float64, b float64) {
				ga, gb := tt.qp.Plane(j)
				if math.Abs(gb-b) > 1e-12*math.Max(1, b) {
					t.Errorf("%s: %s: offset %.15g, on T directly %.15g", name, what, gb, b)
				}
				for i := range a {
					if math.Abs(ga[i]-a[i]) > 1e-12*math.Max(1, math.Abs(a[i])) {
						t.Errorf("%s: %s: a[%d] = %.15g, on T directly %.15g", name, what, i, ga[i], a[i])
						break
					}
				}
			}
			onT := func(j int) [][]int {
				z := make([][]int, len(all))
				for k, i := range where {
					z[i] = yhat[j][k]
				}
				return z
			}
			for j := range ws.Planes {
				a, b := plane(onT(j))
				same(fmt.Sprintf("plane %d", j), j, a, b)
			}
			// One iteration: inference labels every instance, and each
			// carried plane is added completed with those labellings on
			// the instances S lacks.
			tt.s.MaxIter = 1
			if err := tt.run(); err != nil {
				t.Fatal(err)
			}
			carried := len(ws.Planes)
			if st.Completed != carried || tt.qp.Planes() != 2*carried+1 {
				t.Errorf("%s: %d planes completed, %d in the QP after one iteration, want %d and %d", name, st.Completed, tt.qp.Planes(), carried, 2*carried+1)
				continue
			}
			first := make([][]int, len(all))
			for _, wk := range tt.works {
				for i, z := range wk.prev {
					first[i] = z
				}
			}
			a, b := plane(first)
			same("the first iteration's plane", carried, a, b)
			for j := range carried {
				z := onT(j)
				for i := range all {
					if z[i] == nil {
						z[i] = first[i]
					}
				}
				a, b := plane(z)
				same(fmt.Sprintf("completion of plane %d", j), carried+1+j, a, b)
			}
			// With the inference cache the completions come from its
			// entries (no labellings are kept): the first round is not
			// cached, so the QP must hold the same planes.
			s.Tuning = Tuning{Cache: 5}
			tc, err := newTrainer(all, labels, s)
			if err != nil {
				t.Fatal(err)
			}
			tc.s.MaxIter = 1
			if err := tc.warmStart(); err != nil {
				t.Fatal(err)
			}
			if err := tc.run(); err != nil {
				t.Fatal(err)
			}
			if tc.qp.Planes() != tt.qp.Planes() || tc.trace.Warm.Completed != carried {
				t.Errorf("%s, cache: %d planes, %d completed, want %d, %d", name, tc.qp.Planes(), tc.trace.Warm.Completed, tt.qp.Planes(), carried)
				continue
			}
			for j := range tc.qp.Planes() {
				a, b := tc.qp.Plane(j)
				same(fmt.Sprintf("cache: plane %d", j), j, a, b)
				if fmt.Sprint(tc.tallies[j]) != fmt.Sprint(tt.tallies[j]) {
					t.Errorf("%s, cache: plane %d: tally %v, without the cache %v", name, j, tc.tallies[j], tt.tallies[j])
				}
			}
		}
	}
	// Costs that differ between nodes of one class: no tally re-costs them.
	_, part, err := Train(sub, labels, Settings{Set: C4{}, C: 10, Tol: 1e-3, Workers: 1, Loss: ClassAveraged{}})
	if err != nil {
		t.Fatal(err)
	}
	costs := refCosts(all, labels, false)
	costs[where[0]][0] *= 2
	_, tr, err := Train(all, labels, Settings{Set: C4{}, C: 10, Tol: 1e-3, Workers: 1, Loss: NodeCosts{Costs: costs},
		Warm: part.Working, WarmInstances: where})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr.Warm; st.Planes != 0 || st.Recosted != 0 || st.PlanesDropped != len(part.Working.Planes) {
		t.Errorf("node costs not constant per class: %+v, want every plane dropped", *st)
	}
}

// TestWarmStartRefuses checks what a working set of another problem gives:
// an error for another layout or a bad instance map, dropped planes when
// a training instance's labels differ, dropped hard constraints for
// another set.
func TestWarmStartRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 33))
	train := smoothSet(rng, 5, 7, 3, 2)
	// Without stabilisation, whose working set here ends with no hard
	// constraint.
	_, tr, err := Train(train, 2, Settings{Set: C4{}, C: 5, Workers: 1, Tuning: Tuning{Stabilize: -1}})
	if err != nil {
		t.Fatal(err)
	}
	ws := tr.Working
	if len(ws.Planes) == 0 || len(ws.Hard) == 0 {
		t.Fatalf("working set has %d planes and %d hard constraints; the test needs both", len(ws.Planes), len(ws.Hard))
	}
	other := smoothSet(rand.New(rand.NewPCG(6, 33)), 5, 7, 4, 2)
	if _, _, err := Train(other, 2, Settings{Set: C4{}, Warm: ws}); err == nil || !strings.Contains(err.Error(), "layout") {
		t.Errorf("another layout: err = %v, want a layout error", err)
	}
	if _, _, err := Train(train, 2, Settings{Set: C4{}, Warm: ws, WarmInstances: []int{0, 1}}); err == nil || !strings.Contains(err.Error(), "WarmInstances") {
		t.Errorf("short instance map: err = %v", err)
	}
	if _, _, err := Train(train, 2, Settings{Set: C4{}, Warm: ws, WarmInstances: []int{0, 0, 1, 2, 3}}); err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("repeated instance: err = %v", err)
	}
	relabelled := append([]Instance(nil), train...)
	relabelled[2].Labels = append([]int(nil), train[2].Labels...)
	relabelled[2].Labels[0] = 1 - relabelled[2].Labels[0]
	_, tr2, err := Train(relabelled, 2, Settings{Set: C4{}, C: 5, Workers: 1, Warm: ws})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr2.Warm; st.Planes != 0 || st.PlanesDropped != len(ws.Planes) || st.Hard != len(ws.Hard) {
		t.Errorf("one label changed: %+v, want every plane dropped and every hard constraint kept", *st)
	}
	_, tr3, err := Train(train, 2, Settings{Set: C3{}, C: 5, Workers: 1, Warm: ws})
	if err != nil {
		t.Fatal(err)
	}
	if st := tr3.Warm; st.Hard != 0 || st.HardDropped != len(ws.Hard) || st.Planes != len(ws.Planes) {
		t.Errorf("another set: %+v, want the planes and no hard constraint", *st)
	}
}

// TestWorkingSetFile round-trips a working set through Save and
// LoadWorkingSet and refuses a damaged file.
func TestWorkingSetFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	train := smoothSet(rng, 4, 6, 3, 2)
	_, tr, err := Train(train, 2, Settings{Set: C4{}, C: 3, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ws.gob")
	if err := tr.Working.Save(path); err != nil {
		t.Fatal(err)
	}
	ws, err := LoadWorkingSet(path)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(*ws) != fmt.Sprint(*tr.Working) {
		t.Errorf("round trip changed the working set")
	}
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadWorkingSet(path); err == nil {
		t.Errorf("damaged file loaded")
	}
	if _, err := LoadWorkingSet(filepath.Join(t.TempDir(), "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}
