package psub

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLazyGenerationCertified trains the sets that generate hard
// constraints with and without the inference cache (Tuning.Cache, whose
// stages generate lazily: no margin pass after a cached plane's QP solve,
// generation before real inference) on small binary problems, and checks
// both against enumeration (refPrimal): each returned model's primal is
// the reported one and within Tol of the reported dual, the two primals
// agree within Tol, and the two weight vectors within the distance strong
// convexity allows (½‖w − w*‖² ≤ P(w) − P* ≤ Tol·P(w) for each). It also
// requires that the runs hit the cache in generating stages and that a
// deferred generation added rows, so that both paths are exercised.
func TestLazyGenerationCertified(t *testing.T) {
	seeds := 8
	if testing.Short() {
		seeds = 3
	}
	variants := []struct {
		name string
		s    Settings
	}{
		{"C4", Settings{Set: C4{}}},
		{"C4 delayed", Settings{Set: C4{}, Delayed: true}},
		{"C4 delayed tight", Settings{Set: C4{}, Delayed: true, Tuning: Tuning{TightBounds: true}}},
		{"C4 2-pass", Settings{Set: C4{}, Delayed: true, Pretrain: true}},
		{"C3", Settings{Set: C3{}}},
		{"C2*", Settings{Set: C2Star{}}},
		{"C3 minibatches", Settings{Set: C3{}, Minibatches: 3, Tuning: Tuning{AddK: 5}}},
	}
	hits, deferred, runs := 0, 0, 0
	for seed := 0; seed < seeds; seed++ {
		rng := rand.New(rand.NewPCG(uint64(300+seed), 27))
		var train []Instance
		if seed%2 == 0 {
			train = smoothSet(rng, 4+rng.IntN(6), 6+rng.IntN(3), 3, 2)
		} else {
			train = gridSet(rng, 8+rng.IntN(8), 3, 3, 3)
		}
		for _, v := range variants {
			for _, c := range []float64{1, 10, 50} {
				const tol = 1e-3
				var primal [2]float64
				var w [2][]float64
				for k, cache := range []int{0, 5} {
					s := v.s
					s.C, s.Tol, s.Workers, s.Tuning.Cache = c, tol, 1, cache
					name := fmt.Sprintf("seed %d %s C=%g cache %d", seed, v.name, c, cache)
					m, tr, err := Train(train, 2, s)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if !tr.Converged {
						t.Errorf("%s: not converged: %v %v", name, tr.Stop, tr.Problems)
					}
					ref := func(w []float64) float64 { return refPrimal(w, c, 2, train, false) }
					checkReturned(t, name, m, tr, tol, ref)
					primal[k], w[k] = ref(m.W), m.W
					last := stageOfLast(tr)
					for j, it := range tr.Iterations {
						if it.Stage != last {
							continue
						}
						if it.CacheHit {
							hits++
						} else if j > 0 && tr.Iterations[j-1].CacheHit && it.HardAdded > 0 {
							deferred++
						}
					}
					runs++
				}
				p := math.Max(primal[0], primal[1])
				if d := math.Abs(primal[0] - primal[1]); d > tol*p {
					t.Errorf("seed %d %s C=%g: primal %.9g without the cache, %.9g with it", seed, v.name, c, primal[0], primal[1])
				}
				dist := 0.0
				for i := range w[0] {
					dist += (w[0][i] - w[1][i]) * (w[0][i] - w[1][i])
				}
				if bound := 2 * math.Sqrt(2*tol*p); math.Sqrt(dist) > bound {
					t.Errorf("seed %d %s C=%g: ‖w − w_cache‖ = %.3g > %.3g", seed, v.name, c, math.Sqrt(dist), bound)
				}
			}
		}
	}
	t.Logf("%d runs; %d cache hits in generating stages; %d deferred generations added rows", runs, hits, deferred)
	if hits == 0 || deferred == 0 {
		t.Errorf("%d cache hits in generating stages, %d deferred generations that added rows: the test does not exercise lazy generation", hits, deferred)
	}
}

// stageOfLast is the stage of the last iteration (the exact stage).
func stageOfLast(tr *Trace) int {
	return tr.Final().Stage
}
