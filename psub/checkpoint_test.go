package psub

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// interrupted runs Train in its own goroutine and abandons it, as a killed
// process would, inside iteration stop (after its inference and QP, before
// its checkpoint is written).
func interrupted(t *testing.T, train []Instance, s Settings, stop int) {
	t.Helper()
	done := make(chan bool)
	s.Progress = func(it Iteration) {
		if it.Iter == stop {
			close(done)
			runtime.Goexit()
		}
	}
	go func() {
		_, tr, err := Train(train, 2, s)
		t.Errorf("Train returned before iteration %d (err %v, %d iterations)", stop, err, len(tr.Iterations))
		close(done)
	}()
	<-done
}

func checkpointFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// A training interrupted mid-iteration and started again on the same
// problem resumes after the last completed iteration and reaches the
// uninterrupted run's optimum (within ‖w − w*‖² ≤ 2·gap for each run), with
// one trace whose iterations follow each other.
func TestCheckpointResume(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	train := smoothSet(rng, 8, 14, 3, 2)
	const tol = 1e-5
	for _, tc := range []struct {
		name string
		s    Settings
		stop int // the iteration that is interrupted
	}{
		{"C4 delayed", Settings{C: 5, Tol: tol, Set: C4{}, Delayed: true}, 4},
		{"C4 2-pass, stopped in pretraining", Settings{C: 5, Tol: tol, Set: C4{}, Delayed: true, Pretrain: true}, 3},
		{"C3 minibatches", Settings{C: 5, Tol: tol, Set: C3{}, Minibatches: 3, AddK: 5}, 7},
		{"C2 sign bounds", Settings{C: 5, Tol: tol, Set: C2{}}, 3},
		{"Unconstrained", Settings{C: 5, Tol: tol, Set: Unconstrained{}}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref, refTr := trainSet(t, train, tc.s)
			dir := t.TempDir()
			s := tc.s
			s.CheckpointDir = dir
			interrupted(t, train, s, tc.stop)
			files := checkpointFiles(t, dir)
			if len(files) != 1 || !strings.HasPrefix(filepath.Base(files[0]), "train-") {
				t.Fatalf("after the interruption %s holds %v, want one train-*.ckpt", dir, files)
			}
			m, tr := trainSet(t, train, s)
			if len(tr.Resumed) != 1 || tr.Resumed[0] != tc.stop-1 {
				t.Errorf("Resumed = %v, want [%d]", tr.Resumed, tc.stop-1)
			}
			for k, it := range tr.Iterations {
				if it.Iter != k+1 {
					t.Fatalf("trace iteration %d has Iter %d: the resumed trace is not continuous", k, it.Iter)
				}
			}
			if tr.Iters != len(tr.Iterations) {
				t.Errorf("Iters = %d, trace has %d iterations", tr.Iters, len(tr.Iterations))
			}
			if f := checkpointFiles(t, dir); len(f) != 0 {
				t.Errorf("after convergence %s still holds %v", dir, f)
			}
			gap := func(tr *Trace) float64 { f := tr.Final(); return math.Max(0, f.Primal-f.Dual) }
			bound := math.Sqrt(2*gap(refTr)) + math.Sqrt(2*gap(tr)) + 1e-9
			d := 0.0
			for i := range m.W {
				d += (m.W[i] - ref.W[i]) * (m.W[i] - ref.W[i])
			}
			d = math.Sqrt(d)
			t.Logf("resumed after %d: %d iterations (uninterrupted %d), ‖w − w_ref‖ = %.2g (bound %.2g), hard %d",
				tc.stop-1, tr.Iters, refTr.Iters, d, bound, tr.HardIntroduced)
			if d > bound {
				t.Errorf("‖w − w_ref‖ = %v exceeds %v", d, bound)
			}
			if _, ok := tc.s.Set.(C4); ok {
				if frac, err := m.NonSubmodularFraction(train, 1e-6); err != nil || frac != 0 {
					t.Errorf("after resuming C4: non-submodular training edges %v (%v)", frac, err)
				}
			}
		})
	}
}

// MaxIter stops a run and keeps its checkpoint; a later run with a larger
// MaxIter goes on from there, and a run with other settings does not.
func TestCheckpointMaxIter(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	train := smoothSet(rng, 6, 12, 3, 2)
	dir := t.TempDir()
	s := Settings{C: 5, Tol: 1e-5, Set: C4{}, Delayed: true, MaxIter: 3, CheckpointDir: dir}
	_, tr, err := Train(train, 2, s)
	if err != nil || tr.Converged {
		t.Fatalf("3 iterations: err %v, converged %v; want a stopped run", err, tr.Converged)
	}
	if f := checkpointFiles(t, dir); len(f) != 1 {
		t.Fatalf("after MaxIter %s holds %v, want the checkpoint", dir, f)
	}
	other := s
	other.C, other.MaxIter = 6, 0
	_, tr, err = Train(train, 2, other)
	if err != nil || len(tr.Resumed) != 0 || !tr.Converged {
		t.Errorf("C = 6: err %v, resumed %v, converged %v; want a fresh converged run", err, tr.Resumed, tr.Converged)
	}
	if f := checkpointFiles(t, dir); len(f) != 1 {
		t.Errorf("another setting's run left %v, want only the C = 5 checkpoint", f)
	}
	s.MaxIter = 0
	_, tr, err = Train(train, 2, s)
	if err != nil || !tr.Converged || len(tr.Resumed) != 1 || tr.Resumed[0] != 3 {
		t.Errorf("more iterations: err %v, converged %v, resumed %v; want converged, resumed after 3", err, tr.Converged, tr.Resumed)
	}
}

// A damaged checkpoint is an error that names the file and says what to do,
// not a silent fresh start.
func TestCheckpointDamaged(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	train := smoothSet(rng, 4, 10, 3, 2)
	dir := t.TempDir()
	s := Settings{C: 5, Set: C4{}, Delayed: true, MaxIter: 2, CheckpointDir: dir}
	if _, _, err := Train(train, 2, s); err != nil {
		t.Fatal(err)
	}
	files := checkpointFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%s holds %v", dir, files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(files[0], raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = Train(train, 2, s)
	if err == nil || !strings.Contains(err.Error(), files[0]) || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("truncated checkpoint: err %v, want an error naming %s", err, files[0])
	}
}
