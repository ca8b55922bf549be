package psub

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/inference"
)

var layoutCases = []struct {
	name   string
	labels int
	tied   bool
}{
	{"binary", 2, false},
	{"binary-tied", 2, true},
	{"3-labels", 3, false},
	{"4-labels-tied", 4, true},
}

// w·ψ(x,y) must equal −E(y) for the energy built from w, whichever path
// builds it (Layout.Potentials, the learner's matrix products, Score).
func TestJointFeatureMatchesEnergy(t *testing.T) {
	for _, tc := range layoutCases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.labels)))
			in := randomInstance(rng, 7, 6, 3, 2, tc.labels)
			l := Layout{Labels: tc.labels, UnaryDim: 3, PairwiseDim: 2, Tied: tc.tied}
			m := &Model{Layout: l, W: randomW(rng, l.Dim())}
			e, err := m.Energy(&in)
			if err != nil {
				t.Fatal(err)
			}
			tr := &trainer{layout: l, train: []Instance{in}, w: m.W, s: Settings{Workers: 1}}
			tr.prepare()
			e2 := inference.NewEnergy(in.Nodes(), l.Labels, in.Edges)
			l.reduce(m.W, &tr.red)
			l.fillEnergy(e2, &tr.feats[0], &tr.red, make([]float64, 16))
			// The reduced energy drops a constant per node and edge: fix
			// it by the all-zero labelling.
			zero := make([]int, in.Nodes())
			shift := e.Eval(zero) - e2.Eval(zero)
			for trial := 0; trial < 20; trial++ {
				y := make([]int, in.Nodes())
				for k := range y {
					y[k] = rng.IntN(tc.labels)
				}
				psi := make([]float64, l.Dim())
				l.JointFeature(psi, &in, y, 1)
				want := dot(m.W, psi)
				score, err := m.Compatibility(&in, y)
				if err != nil {
					t.Fatal(err)
				}
				for name, got := range map[string]float64{"Energy": -e.Eval(y), "trainer": -e2.Eval(y) - shift, "Compatibility": score} {
					if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
						t.Fatalf("%s: w·ψ = %v, got %v", name, want, got)
					}
				}
				// ψ(y) − ψ(z) by the sparse difference.
				z := make([]int, len(y))
				for k := range z {
					z[k] = rng.IntN(tc.labels)
				}
				diff := make([]float64, l.Dim())
				l.featureDiff(diff, &in, &tr.feats[0], y, z)
				l.JointFeature(psi, &in, z, -1)
				for i := range diff {
					if math.Abs(diff[i]-psi[i]) > 1e-12 {
						t.Fatalf("jointFeatureDiff[%d] = %v, want %v", i, diff[i], psi[i])
					}
				}
			}
		})
	}
}

// Tied weights make the score independent of edge orientation.
func TestTiedOrientation(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	in := randomInstance(rng, 6, 5, 2, 3, 3)
	l := Layout{Labels: 3, UnaryDim: 2, PairwiseDim: 3, Tied: true}
	w := randomW(rng, l.Dim())
	flipped := in
	flipped.Edges = nil
	for _, e := range in.Edges {
		flipped.Edges = append(flipped.Edges, [2]int{e[1], e[0]})
	}
	y := []int{0, 1, 2, 2, 1, 0}
	if a, b := l.Compatibility(w, &in, y), l.Compatibility(w, &flipped, y); math.Abs(a-b) > 1e-12 {
		t.Fatalf("tied score depends on orientation: %v vs %v", a, b)
	}
}

// Loss-augmented inference folds Δ into the unaries: the minimiser of the
// augmented energy must maximise w·ψ + Δ over all labellings.
func TestLossAugmentedBruteForce(t *testing.T) {
	for _, loss := range []Loss{Hamming{}, ClassAveraged{}} {
		for _, tc := range layoutCases[:3] {
			t.Run(loss.Name()+"/"+tc.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(3, uint64(tc.labels)))
				set := []Instance{randomInstance(rng, 6, 4, 2, 2, tc.labels), randomInstance(rng, 5, 3, 2, 2, tc.labels)}
				l := Layout{Labels: tc.labels, UnaryDim: 2, PairwiseDim: 2, Tied: tc.tied}
				costs, err := loss.NodeCosts(set, tc.labels)
				if err != nil {
					t.Fatal(err)
				}
				tr := &trainer{layout: l, train: set, costs: costs, w: randomW(rng, l.Dim()),
					s: Settings{Workers: 2}}
				tr.prepare()
				for _, wk := range tr.works {
					wk.method = inference.BruteForce{}
					wk.solvers = map[int]inference.Solver{}
				}
				a, b, _, err := tr.lossAugmented()
				if err != nil {
					t.Fatal(err)
				}
				// Oracle: enumerate, independently of the energy code.
				wantA := make([]float64, l.Dim())
				wantB := 0.0
				for i := range set {
					in := &set[i]
					best, bestY := math.Inf(-1), []int(nil)
					allLabellings(in.Nodes(), tc.labels, func(y []int) {
						v := l.Compatibility(tr.w, in, y) + LossValue(costs[i], in.Labels, y)
						if v > best+1e-12 {
							best, bestY = v, append([]int(nil), y...)
						}
					})
					l.JointFeature(wantA, in, in.Labels, 0.5)
					l.JointFeature(wantA, in, bestY, -0.5)
					wantB += 0.5 * LossValue(costs[i], in.Labels, bestY)
				}
				// Ties could pick another maximiser; compare the objective.
				gotObj := b - dot(a, tr.w)
				wantObj := wantB - dot(wantA, tr.w)
				if math.Abs(gotObj-wantObj) > 1e-9 {
					t.Fatalf("max of Δ − w·δψ: got %v, brute force %v", gotObj, wantObj)
				}
			})
		}
	}
}

func TestClassAveragedLoss(t *testing.T) {
	in := Instance{Unary: make([][]float64, 5), Labels: []int{0, 0, 0, 0, 1}}
	costs, err := ClassAveraged{}.NodeCosts([]Instance{in}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Mislabelling the only node of class 1 loses half the class-averaged
	// accuracy; mislabelling one of four class-0 nodes loses 1/8.
	for _, tc := range []struct {
		name string
		y    []int
		want float64
	}{
		{"perfect", []int{0, 0, 0, 0, 1}, 0},
		{"minority", []int{0, 0, 0, 0, 0}, 0.5},
		{"one-majority", []int{1, 0, 0, 0, 1}, 0.125},
		{"all-wrong", []int{1, 1, 1, 1, 0}, 1},
	} {
		if got := LossValue(costs[0], in.Labels, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: Δ_avg = %v, want %v", tc.name, got, tc.want)
		}
	}
	h, _ := Hamming{}.NodeCosts([]Instance{in}, 2)
	if got := LossValue(h[0], in.Labels, []int{0, 0, 0, 0, 0}); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("Hamming = %v, want 0.2", got)
	}
}

// The margins of the pool (Algorithm 1's V = P·W̃_p·Bᵀ and Algorithm 2's
// bounds) are checked against c_ij·w computed from the explicit rows.
func TestPoolMargins(t *testing.T) {
	for _, tc := range layoutCases {
		for _, set := range []string{"C2*", "C3", "C4"} {
			t.Run(tc.name+"/"+set, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(4, uint64(tc.labels)))
				data := []Instance{randomInstance(rng, 6, 4, 2, 3, tc.labels), randomInstance(rng, 8, 4, 2, 3, tc.labels)}
				l := Layout{Labels: tc.labels, UnaryDim: 2, PairwiseDim: 3, Tied: tc.tied}
				cs, _ := SetByName(set)
				spec, err := buildSpec(cs, l, data)
				if err != nil {
					t.Fatal(err)
				}
				full, delayed := spec.pool, func() *pool { s, _ := buildSpec(cs, l, data); return s.pool }()
				tight := func() *pool { s, _ := buildSpec(cs, l, data); return s.pool }()
				delayed.workers, tight.tight = 2, true
				w := randomW(rng, l.Dim())
				for step := 0; step < 6; step++ {
					full.computeFull(w)
					delayed.computeDelayed(w)
					tight.computeDelayed(w)
					for idx := 0; idx < full.size(); idx++ {
						want := dot(full.row(idx), w)
						if tight.lower[idx] > want+1e-9 || (want <= 0 && math.Abs(tight.lower[idx]-want) > 1e-9) {
							t.Fatalf("tight bound L[%d] = %v, margin %v", idx, tight.lower[idx], want)
						}
						if math.Abs(full.lower[idx]-want) > 1e-9 {
							t.Fatalf("V[%d] = %v, want %v", idx, full.lower[idx], want)
						}
						if delayed.lower[idx] > want+1e-9 {
							t.Fatalf("bound L[%d] = %v above margin %v", idx, delayed.lower[idx], want)
						}
						if want <= 0 && math.Abs(delayed.lower[idx]-want) > 1e-9 {
							t.Fatalf("L[%d] = %v not recomputed (margin %v)", idx, delayed.lower[idx], want)
						}
						if math.Abs(full.normOf(idx)-norm(full.row(idx))) > 1e-9 {
							t.Fatalf("N[%d] = %v, want %v", idx, full.normOf(idx), norm(full.row(idx)))
						}
					}
					vf, mf := full.violated(3, 0)
					vd, md := delayed.violated(3, 0)
					// The minimum is exact when it is ≤ 0, a lower bound otherwise.
					if len(vf) != len(vd) || (mf <= 0 && mf != md) || md > mf {
						t.Fatalf("full picks %v (min %v), delayed %v (min %v)", vf, mf, vd, md)
					}
					for k := range vf {
						if full.lower[vf[k]] != delayed.lower[vd[k]] {
							t.Fatalf("k-th most violated differs: %v vs %v", vf, vd)
						}
					}
					// A small step, as late in training.
					for i := range w {
						w[i] += 0.05 * rng.NormFloat64()
					}
				}
				if delayed.computed >= full.computed || tight.computed > delayed.computed {
					t.Errorf("margins computed: full %d, delayed %d, tight %d", full.computed, delayed.computed, tight.computed)
				}
			})
		}
	}
}

// The rows of each set are what the paper writes, checked on explicit
// label pairs.
func TestSetRowsMeaning(t *testing.T) {
	l := Layout{Labels: 3, UnaryDim: 1, PairwiseDim: 1}
	w := randomW(rand.New(rand.NewPCG(5, 5)), l.Dim())
	at := func(a, b int) float64 { return w[l.PairwiseIndex(a, b, 0)] }
	B := submodularRows(l)
	q := newIdentityPool(l, B)
	q.computeFull(w)
	j := 0
	for a := 0; a < 3; a++ {
		for b := a + 1; b < 3; b++ {
			want := at(a, a) + at(b, b) - at(a, b) - at(b, a)
			if math.Abs(q.lower[j]-want) > 1e-12 {
				t.Errorf("pair (%d,%d): margin %v, want %v", a, b, q.lower[j], want)
			}
			j++
		}
	}
	if got := len(signRows(l)); got != 9 {
		t.Errorf("C3 has %d rows per edge for 3 labels, want 9", got)
	}
}

func TestModelSaveLoad(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	l := Layout{Labels: 3, UnaryDim: 4, PairwiseDim: 2, Tied: true}
	m := &Model{Layout: l, W: randomW(rng, l.Dim()), Set: "C4", C: 0.5, Loss: "hamming", Description: "round trip"}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got.Layout != m.Layout || got.Set != m.Set || got.C != m.C || got.Loss != m.Loss || got.Description != m.Description {
		t.Fatalf("loaded %+v, want %+v", got, m)
	}
	for i := range m.W {
		if got.W[i] != m.W[i] {
			t.Fatalf("w[%d] = %v, want %v (not bit-exact)", i, got.W[i], m.W[i])
		}
	}
	for _, tc := range []struct{ name, json, want string }{
		{"short-w", `{"version":1,"labels":2,"unary_dim":1,"pairwise_dim":1,"w":[1,2]}`, "needs 6"},
		{"version", `{"version":9,"labels":2,"unary_dim":1,"pairwise_dim":1,"w":[]}`, "version 9"},
		{"one-label", `{"version":1,"labels":1,"unary_dim":1,"pairwise_dim":1,"w":[1,1]}`, "at least 2 labels"},
		{"unknown-field", `{"version":1,"labelz":2}`, "unknown field"},
		// Issue 32: trailing garbage was accepted; Go type names and whole
		// 50 kB values went into the message.
		{"trailing-garbage", buf.String() + `{"version":1}`, "more after the model's JSON object"},
		{"trailing-text", buf.String() + "x", "more after the model's JSON object"},
		{"string-weight", `{"version":1,"w":["a"]}`, `field "w": string where a number expected`},
		{"long-number", `{"version":1,"labels":1` + strings.Repeat("0", 50000) + `}`, `field "labels": number 1000`},
		{"array", `[1,2]`, "array where a JSON object expected"},
		{"cut-short", buf.String()[:buf.Len()/2], "the file ends inside the model"},
		{"hard-tol", `{"version":1,"labels":2,"unary_dim":0,"pairwise_dim":0,"w":[],"hard_tol":-1}`, "hard_tol -1"},
	} {
		_, err := Load(strings.NewReader(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
			continue
		}
		if len(err.Error()) > 200 || strings.Contains(err.Error(), "psub.") || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: error %q: too long or names Go types", tc.name, err)
		}
	}
	// White space after the object is fine; the tolerance round-trips.
	m.HardTol = 3e-8
	buf.Reset()
	m.Save(&buf)
	if got, err := Load(strings.NewReader(buf.String() + "\n \n")); err != nil || got.HardTol != 3e-8 {
		t.Errorf("trailing white space: %v, hard_tol %v", err, got.HardTol)
	}
	// SaveFile is atomic and LoadFile names the file once.
	path := filepath.Join(t.TempDir(), "m.json")
	if err := m.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, append(buf.Bytes(), "junk"...), 0o644)
	if _, err := LoadFile(path); err == nil || strings.Count(err.Error(), path) != 1 {
		t.Errorf("LoadFile error %v: want the path once", err)
	}
	if err := m.SaveFile(filepath.Join(t.TempDir(), "missing", "m.json")); err == nil || !strings.Contains(err.Error(), "m.json") {
		t.Errorf("SaveFile into a missing folder: %v", err)
	}
}

// TestDot checks the unrolled dot product against the plain sum for every
// length around the unrolling's multiple of four, with a longer first
// argument as the callers pass it.
func TestDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 19; n++ {
		a := make([]float64, n+3)
		b := make([]float64, n)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		want := 0.0
		for i := range b {
			b[i] = rng.NormFloat64()
			want += a[i] * b[i]
		}
		if got := dot(a, b); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("n = %d: dot = %v, want %v", n, got, want)
		}
	}
}
