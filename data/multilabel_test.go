package data

import (
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/probably-submodular/crf/psub"
)

// correlatedData draws n examples of d features with very different
// variances along random directions, so the components are well separated.
func correlatedData(seed uint64, n, d int) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	mix := make([][]float64, d)
	for i := range mix {
		mix[i] = make([]float64, d)
		for j := range mix[i] {
			mix[i][j] = rng.NormFloat64()
		}
	}
	X := make([][]float64, n)
	for i := range X {
		z := make([]float64, d)
		for j := range z {
			z[j] = rng.NormFloat64() * math.Pow(1.7, float64(d-j))
		}
		X[i] = make([]float64, d)
		for a := range d {
			X[i][a] = 3 + float64(a)
			for b := range d {
				X[i][a] += mix[a][b] * z[b]
			}
		}
	}
	return X
}

func TestPCAAgainstCovarianceEigen(t *testing.T) {
	const n, d, k = 200, 8, 5
	X := correlatedData(1, n, d)
	p, err := FitPCA(X, k)
	if err != nil {
		t.Fatal(err)
	}
	// Oracle: eigen-decomposition of the sample covariance (not the SVD
	// that stat.PC uses).
	a := mat.NewDense(n, d, nil)
	for i, x := range X {
		a.SetRow(i, x)
	}
	cov := mat.NewSymDense(d, nil)
	stat.CovarianceMatrix(cov, a, nil)
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("eigen decomposition failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return vals[order[i]] > vals[order[j]] })
	for c := range k {
		e := order[c]
		if math.Abs(p.Variances[c]-vals[e]) > 1e-8*vals[e] {
			t.Fatalf("component %d: variance %v, eigenvalue %v", c, p.Variances[c], vals[e])
		}
		if c > 0 && p.Variances[c] > p.Variances[c-1] {
			t.Fatalf("variances not decreasing: %v", p.Variances)
		}
		dot := mat.Dot(p.Components.ColView(c), vecs.ColView(e))
		if math.Abs(math.Abs(dot)-1) > 1e-6 {
			t.Fatalf("component %d: |<pc, eigenvector>| = %v, want 1", c, math.Abs(dot))
		}
	}
	// Orthonormal columns.
	var g mat.Dense
	g.Mul(p.Components.T(), p.Components)
	if !mat.EqualApprox(&g, eye(k), 1e-10) {
		t.Fatalf("ComponentsᵀComponents = %v", mat.Formatted(&g))
	}
	// Projected training data: zero mean, covariance diag(Variances).
	proj := mat.NewDense(n, k, nil)
	for i, x := range X {
		proj.SetRow(i, p.Project(x, nil))
	}
	pcov := mat.NewSymDense(k, nil)
	stat.CovarianceMatrix(pcov, proj, nil)
	for c := range k {
		if m := stat.Mean(mat.Col(nil, c, proj), nil); math.Abs(m) > 1e-9*math.Sqrt(p.Variances[0]) {
			t.Fatalf("projected mean %d = %v", c, m)
		}
		for c2 := range k {
			want := 0.0
			if c == c2 {
				want = p.Variances[c]
			}
			if math.Abs(pcov.At(c, c2)-want) > 1e-8*p.Variances[0] {
				t.Fatalf("projected covariance (%d,%d) = %v, want %v", c, c2, pcov.At(c, c2), want)
			}
		}
	}
}

func eye(k int) *mat.Dense {
	m := mat.NewDense(k, k, nil)
	for i := range k {
		m.Set(i, i, 1)
	}
	return m
}

func TestPCAFullReconstruction(t *testing.T) {
	const d = 6
	X := correlatedData(2, 50, d)
	p, err := FitPCA(X, d)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range X {
		xt := p.Project(x, nil)
		for j := range d {
			r := p.Mean[j]
			for c := range d {
				r += p.Components.At(j, c) * xt[c]
			}
			if math.Abs(r-x[j]) > 1e-9*(1+math.Abs(x[j])) {
				t.Fatalf("example %d feature %d: reconstructed %v, was %v", i, j, r, x[j])
			}
		}
	}
}

func TestPCAErrors(t *testing.T) {
	X := correlatedData(3, 10, 4)
	for _, k := range []int{0, 5, 11} {
		if _, err := FitPCA(X, k); err == nil {
			t.Errorf("k=%d accepted", k)
		}
	}
	if _, err := FitPCA(X[:1], 1); err == nil {
		t.Error("one example accepted")
	}
}

func TestPosNeg(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for range 100 {
		xt := make([]float64, 1+rng.IntN(10))
		for i := range xt {
			xt[i] = rng.NormFloat64()
			if rng.IntN(5) == 0 {
				xt[i] = 0
			}
		}
		r := PosNeg(xt)
		k := len(xt)
		for i, v := range r {
			if v < 0 {
				t.Fatalf("R[%d] = %v < 0", i, v)
			}
		}
		for i := range xt {
			if r[i]-r[k+i] != xt[i] || r[i]*r[k+i] != 0 {
				t.Fatalf("R = %v does not split %v", r, xt)
			}
		}
	}
}

func TestBuildMultiLabelShapes(t *testing.T) {
	train, test := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 5})
	d, nl := train.Dims()
	for _, c := range []struct {
		name string
		opt  MultiLabelOptions
		du   int
	}{
		{"bias", MultiLabelOptions{Components: 3}, nl * (d + 1)},
		{"no bias", MultiLabelOptions{Components: 3, NoBias: true}, nl * d},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := BuildMultiLabel(train, test, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			ne := nl * (nl - 1) / 2
			if len(p.Train) != train.Len() || len(p.Test) != test.Len() {
				t.Fatalf("%d/%d graphs", len(p.Train), len(p.Test))
			}
			du, dp, err := psub.ValidateSet(p.Train, 2)
			if err != nil || du != c.du || dp != ne*6 {
				t.Fatalf("du %d dp %d err %v; want %d, %d", du, dp, err, c.du, ne*6)
			}
			if _, _, err := psub.ValidateSet(p.Test, 2); err != nil {
				t.Fatal(err)
			}
			in, x := p.Train[7], train.X[7]
			blk := du / nl
			for k := range nl {
				for j, v := range in.Unary[k] {
					want := 0.0
					if j/blk == k {
						want = 1 // the bias
						if j%blk < d {
							want = x[j%blk]
						}
					}
					if v != want {
						t.Fatalf("node %d unary[%d] = %v, want %v", k, j, v, want)
					}
				}
				if in.Labels[k] != train.Y[7][k] {
					t.Fatalf("node %d label %d, want %d", k, in.Labels[k], train.Y[7][k])
				}
			}
			r := PosNeg(p.PCA.Project(x, nil))
			for e, ed := range in.Edges {
				if ed[0] >= ed[1] || (e > 0 && (in.Edges[e-1][0] > ed[0] || in.Edges[e-1][0] == ed[0] && in.Edges[e-1][1] >= ed[1])) {
					t.Fatalf("edges not (k<l) in lexicographic order: %v", in.Edges)
				}
				for j, v := range in.Pairwise[e] {
					want := 0.0
					if j/len(r) == e {
						want = r[j%len(r)]
					}
					if v != want || v < 0 {
						t.Fatalf("edge %d pairwise[%d] = %v, want %v", e, j, v, want)
					}
				}
			}
			// Rows alias one buffer, but append must not write into it.
			before := in.Pairwise[1][0]
			_ = append(in.Pairwise[0], 99)
			if in.Pairwise[1][0] != before {
				t.Fatal("append to a row overwrote the next row")
			}
		})
	}
}

func TestBuildMultiLabelErrors(t *testing.T) {
	train, test := SyntheticMultiLabel(SyntheticMultiLabelOptions{Seed: 6})
	bad := test.Subset([]int{0, 1})
	bad.FeatureNames = bad.FeatureNames[:2]
	if _, err := BuildMultiLabel(train, bad, MultiLabelOptions{Components: 2}); err == nil {
		t.Error("test set with other dimensions accepted")
	}
	if _, err := BuildMultiLabel(train.Subset(nil), nil, MultiLabelOptions{}); err == nil {
		t.Error("empty training set accepted")
	}
	if _, err := BuildMultiLabel(train, nil, MultiLabelOptions{Components: 1000}); err == nil {
		t.Error("more components than features accepted")
	}
}

func TestYeastAndSceneLoaders(t *testing.T) {
	cases := []struct {
		name          string
		load          func(string) (*MultiLabelSet, *MultiLabelSet, error)
		nTrain, nTest int
		d, c          int
		firstLabel    string
		cardTrain     float64 // label cardinality from the data README
	}{
		{"yeast", LoadYeast, 1500, 917, 103, 14, "Class1", 4.228},
		{"scene", LoadScene, 1211, 1196, 294, 6, "Beach", 1.062},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			train, test, err := c.load("")
			if errors.Is(err, ErrNotFound) {
				t.Skipf("data not available: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			dir, _ := Find("", c.name)
			if err := VerifyFiles(dir, c.name); err != nil {
				t.Fatal(err)
			}
			d, nl := train.Dims()
			if train.Len() != c.nTrain || test.Len() != c.nTest || d != c.d || nl != c.c || train.LabelNames[0] != c.firstLabel {
				t.Fatalf("%d/%d × %d × %d (first label %s)", train.Len(), test.Len(), d, nl, train.LabelNames[0])
			}
			ones := 0
			for _, y := range train.Y {
				for _, v := range y {
					ones += v
				}
			}
			if card := float64(ones) / float64(train.Len()); math.Abs(card-c.cardTrain) > 0.0005 {
				t.Fatalf("label cardinality %.4f, README says %.3f", card, c.cardTrain)
			}
		})
	}
}
