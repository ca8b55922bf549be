package feature

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

func TestMajorityVoteProjectOracle(t *testing.T) {
	// Region 0 has classes 1,1,0 → 1; region 1 has 0,1 → tie → 0; region 2
	// has 1 → 1.
	regions := labelMap(6, 1, 1, 0, 0, 0, 1, 1, 2)
	classes := labelMap(6, 1, 1, 1, 1, 0, 0, 1, 1)
	votes, err := MajorityVote(regions, classes, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 0, 1}; !reflect.DeepEqual(votes, want) {
		t.Fatalf("votes %v, want %v", votes, want)
	}
	proj, err := Project(regions, votes)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 1, 1, 0, 0, 1}; !reflect.DeepEqual(proj.Labels, want) {
		t.Fatalf("projection %v, want %v", proj.Labels, want)
	}
	o, err := NewOracle(regions, classes, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Hand count: TN 1 (voxel 3), FP 1 (voxel 2), FN 1 (voxel 4), TP 3.
	if want := []int64{1, 1, 1, 3}; !reflect.DeepEqual(o.Voxels.Counts, want) {
		t.Fatalf("oracle confusion %v, want %v", o.Voxels.Counts, want)
	}
	if !near(o.Voxels.Accuracy(), 4.0/6) {
		t.Fatalf("oracle accuracy %v, want 4/6", o.Voxels.Accuracy())
	}
	if _, err := Project(regions, []int{1}); err == nil {
		t.Fatal("too few region labels accepted")
	}
	if _, err := MajorityVote(regions, labelMap(6, 1, 1, 0, 0, 2, 0, 0, 0), 2); err == nil || !strings.Contains(err.Error(), "(2,0,0) has class 2") {
		t.Fatalf("class out of range: err = %v", err)
	}
}

// TestOracleIsBest checks, by enumerating every labelling of a few regions,
// that no region labelling beats the oracle's voxel accuracy.
func TestOracleIsBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 30 {
		const n, k = 4, 3
		regions := imageio.NewLabelMap(5, 3, 1)
		classes := imageio.NewLabelMap(5, 3, 1)
		for i := range regions.Labels {
			regions.Labels[i] = int32(rng.IntN(n))
			classes.Labels[i] = int32(rng.IntN(k))
		}
		regions.Labels[0] = n - 1 // all n regions counted
		o, err := NewOracle(regions, classes, k)
		if err != nil {
			t.Fatal(err)
		}
		best := 0.0
		labels := make([]int, n)
		for code := range 81 { // 3^4 labellings
			for r, c := 0, code; r < n; r, c = r+1, c/k {
				labels[r] = c % k
			}
			proj, err := Project(regions, labels)
			if err != nil {
				t.Fatal(err)
			}
			c := NewConfusion(k)
			if err := c.AddMaps(classes, proj); err != nil {
				t.Fatal(err)
			}
			best = max(best, c.Accuracy())
		}
		if !near(best, o.Voxels.Accuracy()) {
			t.Fatalf("trial %d: oracle accuracy %v, best labelling %v", trial, o.Voxels.Accuracy(), best)
		}
	}
}

func TestConfusionMetrics(t *testing.T) {
	truth := []int{0, 0, 0, 0, 1, 1, 1, 2}
	pred := []int{0, 0, 1, 2, 1, 1, 0, 2}
	c := NewConfusion(3)
	if err := c.AddLabels(truth, pred); err != nil {
		t.Fatal(err)
	}
	// By hand: right 0,1,4,5,7 → 5/8. Recalls: class 0 2/4, class 1 2/3,
	// class 2 1/1. IoU: class 0 TP 2, FP 1 (item 6), FN 2 → 2/5; class 1
	// TP 2, FP 1, FN 1 → 2/4; class 2 TP 1, FP 1, FN 0 → 1/2.
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"accuracy", c.Accuracy(), 5.0 / 8},
		{"class-averaged", c.ClassAveraged(), (0.5 + 2.0/3 + 1) / 3},
		{"iou 0", c.IoU()[0], 0.4},
		{"iou 1", c.IoU()[1], 0.5},
		{"iou 2", c.IoU()[2], 0.5},
		{"voc", c.VOC(), (0.4 + 0.5 + 0.5) / 3},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	// A class absent everywhere is left out of the means.
	b := NewConfusion(3)
	b.AddLabels([]int{0, 1, 1}, []int{0, 1, 0})
	if !near(b.ClassAveraged(), 0.75) || !near(b.VOC(), (0.5+0.5)/2) || !math.IsNaN(b.IoU()[2]) {
		t.Errorf("absent class: class-avg %v, VOC %v, IoU %v", b.ClassAveraged(), b.VOC(), b.IoU())
	}
	if err := b.AddLabels([]int{0}, []int{3}); err == nil {
		t.Error("prediction 3 of 3 classes accepted")
	}
	if err := c.Merge(b); err != nil || c.Total() != 11 {
		t.Errorf("merge: total %d, err %v", c.Total(), err)
	}
	m := NewConfusion(2)
	if err := m.AddMaps(labelMap(2, 1, 1, 0, 1), labelMap(1, 2, 1, 0, 1)); err == nil {
		t.Error("maps of different shapes accepted")
	}
}

func TestHammingAccuracy(t *testing.T) {
	got, err := HammingAccuracy([][]int{{1, 0, 1}, {0, 0, 1}}, [][]int{{1, 1, 1}, {0, 0, 0}})
	if err != nil || !near(got, 4.0/6) {
		t.Fatalf("Hamming accuracy %v, %v; want 4/6", got, err)
	}
	if _, err := HammingAccuracy([][]int{{1, 0}}, [][]int{{1}}); err == nil {
		t.Fatal("ragged rows accepted")
	}
}

// Student's sleep data (Cushny & Peebles 1905, Student 1908): extra hours
// of sleep with two drugs for the same 10 patients, R's datasets::sleep.
// R's documented example t.test(extra ~ group, data = sleep, paired = TRUE)
// prints t = -4.0621, df = 9, p-value = 0.002833.
var (
	sleep1 = []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0}
	sleep2 = []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4}
)

// tTwoSided integrates Student's t density with Simpson's rule: an oracle
// for the p-value independent of gonum.
func tTwoSided(t, nu float64) float64 {
	lg1, _ := math.Lgamma((nu + 1) / 2)
	lg2, _ := math.Lgamma(nu / 2)
	c := math.Exp(lg1-lg2) / math.Sqrt(nu*math.Pi)
	f := func(x float64) float64 { return c * math.Pow(1+x*x/nu, -(nu+1)/2) }
	const steps = 20000
	h := math.Abs(t) / steps
	s := f(0) + f(math.Abs(t))
	for i := 1; i < steps; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(float64(i)*h)
	}
	return 1 - 2*s*h/3
}

func TestPairedTTest(t *testing.T) {
	tv, p, err := PairedTTest(sleep1, sleep2)
	if err != nil {
		t.Fatal(err)
	}
	// Hand computation: differences have mean −1.58 and sd 1.2300 (n = 10).
	if math.Abs(tv-(-4.0621)) > 5e-5 || math.Abs(p-0.002833) > 5e-7 {
		t.Fatalf("t = %v, p = %v; R gives t = -4.0621, p = 0.002833", tv, p)
	}
	if o := tTwoSided(tv, 9); math.Abs(p-o) > 1e-9 {
		t.Fatalf("p = %v, numerical integration gives %v", p, o)
	}
	rev, prev, _ := PairedTTest(sleep2, sleep1)
	if rev != -tv || prev != p {
		t.Fatalf("swapping the samples gives t = %v, p = %v", rev, prev)
	}
	for _, tc := range []struct {
		name  string
		a, b  []float64
		t, p  float64
		fails bool
	}{
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 0, 1, false},
		{"constant shift", []float64{2, 3, 4}, []float64{1, 2, 3}, math.Inf(1), 0, false},
		{"one pair", []float64{1}, []float64{2}, 0, 0, true},
		{"length mismatch", []float64{1, 2}, []float64{2}, 0, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tv, p, err := PairedTTest(tc.a, tc.b)
			if (err != nil) != tc.fails || (!tc.fails && (tv != tc.t || p != tc.p)) {
				t.Fatalf("t = %v, p = %v, err = %v", tv, p, err)
			}
		})
	}
}
