package psub

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/probably-submodular/crf/psub/inference"
	"github.com/probably-submodular/crf/psub/qp"
)

// interrupted runs Train in its own goroutine and abandons it, as a killed
// process would, inside iteration stop (after its inference and QP, before
// its checkpoint is written).
func interrupted(t *testing.T, train []Instance, s Settings, stop int) {
	t.Helper()
	exited := make(chan struct{})
	s.Progress = func(it Iteration) {
		if it.Iter == stop {
			runtime.Goexit()
		}
	}
	go func() {
		// Closed after Train's own deferred clean-up has run (Goexit runs
		// the deferred calls): until then the checkpoint's lock is held, and
		// a second Train started at once would find it taken.
		defer close(exited)
		_, tr, err := Train(train, 2, s)
		t.Errorf("Train returned before iteration %d (err %v, %d iterations)", stop, err, len(tr.Iterations))
	}()
	<-exited
}

func checkpointFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	// Not the lock file of a running Train.
	return slices.DeleteFunc(files, func(f string) bool { return strings.HasSuffix(f, ".lock") })
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
		{"C3 minibatches", Settings{C: 5, Tol: tol, Set: C3{}, Minibatches: 3, Tuning: Tuning{AddK: 5}}, 7},
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

// Every kind of damage to a checkpoint is refused (issue 32: one flipped
// bit in the saved best bound gave a "converged" model with a negative gap
// and wrong weights): bits flipped across the whole file, one at a time,
// each give an error naming the file, never a resumed run.
func TestCheckpointBitFlips(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 24))
	train := smoothSet(rng, 4, 10, 3, 2)
	dir := t.TempDir()
	s := Settings{C: 5, Set: C4{}, MaxIter: 3, CheckpointDir: dir}
	if _, _, err := Train(train, 2, s); err != nil {
		t.Fatal(err)
	}
	files := checkpointFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("%s holds %v", dir, files)
	}
	good, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	flips := 60
	if testing.Short() {
		flips = 15
	}
	for k := 0; k < flips; k++ {
		bit := rng.IntN(8 * len(good))
		if k < 8 {
			bit = 8*(len(good)-40) + k // the last bytes of the payload
		}
		bad := append([]byte(nil), good...)
		bad[bit/8] ^= 1 << (bit % 8)
		if err := os.WriteFile(files[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, tr, err := Train(train, 2, s)
		if err == nil || !strings.Contains(err.Error(), files[0]) || !strings.Contains(err.Error(), "remove it") {
			resumed := tr != nil && len(tr.Resumed) > 0
			t.Fatalf("bit %d of %d flipped: err %v, resumed %v; want an error naming the file", bit, 8*len(good), err, resumed)
		}
	}
	// The intact file still resumes.
	os.WriteFile(files[0], good, 0o644)
	if _, tr, err := Train(train, 2, s); err != nil || len(tr.Resumed) != 1 {
		t.Fatalf("intact checkpoint: err %v", err)
	}
}

// The checkpoint goes only once the model is stored: when Settings.Save
// fails (a full disk, a folder removed during training), Train returns its
// error and keeps the checkpoint, and the next run resumes from it instead
// of training again (issue 32: the checkpoint was deleted before the model
// was written).
func TestCheckpointKeptUntilSaved(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 25))
	train := smoothSet(rng, 4, 10, 3, 2)
	dir := t.TempDir()
	full := errors.New("no space left on device")
	s := Settings{C: 5, Set: C4{}, CheckpointDir: dir, Save: func(*Model, *Trace) error { return full }}
	m, tr, err := Train(train, 2, s)
	if !errors.Is(err, full) || m == nil || !tr.Converged || !strings.Contains(err.Error(), "is kept") {
		t.Fatalf("failed save: err %v, model %v, converged %v; want the save's error and the model", err, m != nil, tr.Converged)
	}
	if f := checkpointFiles(t, dir); len(f) != 1 {
		t.Fatalf("after a failed save %s holds %v, want the checkpoint", dir, f)
	}
	var saved *Model
	s.Save = func(m *Model, _ *Trace) error {
		if f := checkpointFiles(t, dir); len(f) != 1 {
			t.Errorf("checkpoint gone before the model was saved: %v", f)
		}
		saved = m
		return nil
	}
	m2, tr2, err := Train(train, 2, s)
	if err != nil || len(tr2.Resumed) != 1 || tr2.Resumed[0] != tr.Iters-1 || saved != m2 || !tr2.Converged {
		t.Fatalf("rerun: err %v, resumed %v, saved %v; want a converged run resumed after %d", err, tr2.Resumed, saved != nil, tr.Iters-1)
	}
	if f := checkpointFiles(t, dir); len(f) != 0 {
		t.Fatalf("after the saved model %s still holds %v", dir, f)
	}
}

// Two trainings of one problem in one checkpoint folder: the second is
// refused, naming the process that holds it. Orphaned temporary files of
// killed checkpoint writes are removed once they are old.
func TestCheckpointLockAndOrphans(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 26))
	train := smoothSet(rng, 4, 10, 3, 2)
	dir := t.TempDir()
	s := Settings{C: 5, Set: C4{}, MaxIter: 2, CheckpointDir: dir}
	held := false
	s.Progress = func(Iteration) {
		if held {
			return
		}
		held = true
		// A second training of the same problem while this one runs.
		_, _, err := Train(train, 2, Settings{C: 5, Set: C4{}, MaxIter: 2, CheckpointDir: dir})
		if err == nil || !strings.Contains(err.Error(), "another training of the same problem") ||
			!strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid())) {
			t.Errorf("second training: %v", err)
		}
	}
	if _, _, err := Train(train, 2, s); err != nil || !held {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, ".train-123456.tmp")
	os.WriteFile(orphan, []byte("half a checkpoint"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(orphan, old, old)
	s.Progress = nil
	if _, _, err := Train(train, 2, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(orphan); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("orphaned temporary file kept: %v", err)
	}
	if locks, _ := filepath.Glob(filepath.Join(dir, "*.lock")); len(locks) != 0 {
		t.Errorf("lock file left after Train returned: %v", locks)
	}
}

// The checkpoint's fingerprint covers every setting that changes the
// iterates, Tuning's knobs included, and none of those that do not
// (MaxIter, Tol, Workers, Progress, Description, CheckpointDir, Save): a
// field added to Settings or Tuning and not hashed fails here. Tol is
// changed with Tuning.QP.Tol fixed, since by default the QP's tolerance
// follows Tol.
func TestFingerprintCoversSettings(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 27))
	train := smoothSet(rng, 3, 8, 3, 2)
	fp := func(s Settings) string {
		t.Helper()
		tr, err := newTrainer(train, 2, s)
		if err != nil {
			t.Fatal(err)
		}
		return tr.fingerprint()
	}
	base := Settings{Tuning: Tuning{QP: qp.Options{Tol: 1e-5}}}
	ref := fp(base)
	ignored := map[string]bool{"MaxIter": true, "Tol": true, "Workers": true, "Progress": true,
		"Description": true, "CheckpointDir": true, "Save": true,
		// WarmInstances alone (no Warm) changes nothing; with Warm it is hashed.
		"WarmInstances": true}
	others := map[string]any{"Loss": ClassAveraged{}, "Set": C3{},
		"SubmodularInference": inference.GraphCut{}, "UnconstrainedInference": inference.QPBO{},
		"Warm": &WorkingSet{C: 2, Planes: []WarmPlane{{A: []float64{1}, B: 0.5}}}}
	// change sets field f, named name, to a value other than the default
	// and reports whether it knew how.
	change := func(f reflect.Value, name string) bool {
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int:
			f.SetInt(7)
		case reflect.Float64:
			f.SetFloat(3e-3)
		case reflect.Func:
			typ := f.Type()
			f.Set(reflect.MakeFunc(typ, func([]reflect.Value) []reflect.Value {
				out := make([]reflect.Value, typ.NumOut())
				for i := range out {
					out[i] = reflect.Zero(typ.Out(i))
				}
				return out
			}))
		case reflect.String:
			f.SetString("other")
		case reflect.Slice:
			f.Set(reflect.ValueOf([]int{0}))
		case reflect.Interface, reflect.Pointer:
			v, ok := others[name]
			if !ok {
				return false
			}
			f.Set(reflect.ValueOf(v))
		default:
			return false
		}
		return true
	}
	var walk func(path string, typ reflect.Type, index []int)
	walk = func(path string, typ reflect.Type, index []int) {
		for i := range typ.NumField() {
			sf := typ.Field(i)
			name, idx := path+sf.Name, append(slices.Clone(index), i)
			if sf.Type.Kind() == reflect.Struct {
				walk(name+".", sf.Type, idx)
				continue
			}
			s := base
			v := reflect.ValueOf(&s).Elem().FieldByIndex(idx)
			if !change(v, sf.Name) {
				t.Errorf("%s: the test does not know how to change a %s: teach it, and hash the field if it changes the iterates", name, sf.Type)
				continue
			}
			if same := fp(s) == ref; same != ignored[name] {
				t.Errorf("%s changed: fingerprint changed = %v, want %v", name, !same, !ignored[name])
			}
		}
	}
	walk("", reflect.TypeFor[Settings](), nil)
}
