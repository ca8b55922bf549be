package data

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

type storedSettings struct {
	Seeds []uint64
	Tol   float64
}

type storedValue struct {
	Rows []float64
	Name string
}

func storedAt(t *testing.T, path string, v CodeVersion, p any, policy ReusePolicy) Stored {
	t.Helper()
	return Stored{Path: path, Params: p, Code: &v, Reuse: policy}
}

func TestStoredReuse(t *testing.T) {
	t.Setenv(ReuseEnv, "")
	path := filepath.Join(t.TempDir(), "out", "nb.json")
	p := storedSettings{Seeds: []uint64{1, 2}, Tol: 1e-3}
	want := storedValue{Rows: []float64{0.5, 1.5}, Name: "ladder"}
	computed := 0
	compute := func(v storedValue) func() (storedValue, error) {
		return func() (storedValue, error) { computed++; return v, nil }
	}

	// No file: computed and stored.
	got, rep, err := LoadOrRun(storedAt(t, path, codeV1, p, ReuseCurrent), compute(want))
	if err != nil || computed != 1 || rep.Status != StoredComputed || rep.Before != StoredMissing || !reflect.DeepEqual(got, want) {
		t.Fatalf("first run: computed %d, report %+v, %v", computed, rep, err)
	}
	if !strings.Contains(rep.String(), "computed and stored "+path) || !strings.Contains(rep.String(), codeV1.Source) {
		t.Errorf("report %q", rep)
	}

	// Same code and params: reused.
	got, rep, err = LoadOrRun(storedAt(t, path, codeV1, p, ReuseCurrent), compute(storedValue{}))
	if err != nil || computed != 1 || rep.Status != StoredCurrent || !reflect.DeepEqual(got, want) || rep.Code != codeV1 || rep.Saved.IsZero() {
		t.Fatalf("same code and params: computed %d, report %+v, value %+v, %v", computed, rep, got, err)
	}
	if s := rep.String(); !strings.Contains(s, "reused the stored result "+path) || !strings.Contains(s, codeV1.Source) || strings.Contains(s, "tale") {
		t.Errorf("report %q", s)
	}

	// Other code: stale, not loaded, computed again.
	var v storedValue
	rep, err = storedAt(t, path, codeV2, p, ReuseCurrent).Load(&v)
	if !errors.Is(err, ErrNoStored) || rep.Status != StoredStale || rep.Why != "other code" || rep.Loaded() || v.Name != "" {
		t.Fatalf("other code: report %+v, value %+v, %v", rep, v, err)
	}
	if !strings.Contains(err.Error(), codeV1.Source) || !strings.Contains(err.Error(), codeV2.Source) {
		t.Errorf("stale error %q does not name both versions", err)
	}
	// Stale under the stale policy: reused, with a warning.
	rep, err = storedAt(t, path, codeV2, p, ReuseStale).Load(&v)
	if err != nil || rep.Status != StoredStaleReused || !reflect.DeepEqual(v, want) {
		t.Fatalf("stale policy: report %+v, %v", rep, err)
	}
	if s := rep.String(); !strings.HasPrefix(s, "WARNING") || !strings.Contains(s, codeV1.Source) || !strings.Contains(s, ReuseEnv+"=stale") {
		t.Errorf("warning %q", s)
	}
	t.Setenv(ReuseEnv, "stale")
	if rep, err = storedAt(t, path, codeV2, p, ReuseFromEnv).Load(&v); err != nil || rep.Status != StoredStaleReused {
		t.Fatalf("%s=stale: report %+v, %v", ReuseEnv, rep, err)
	}
	t.Setenv(ReuseEnv, "")

	other := storedValue{Name: "v2"}
	got, rep, err = LoadOrRun(storedAt(t, path, codeV2, p, ReuseCurrent), compute(other))
	if err != nil || computed != 2 || rep.Status != StoredComputed || rep.Before != StoredStale || got.Name != "v2" {
		t.Fatalf("other code: computed %d, report %+v, %v", computed, rep, err)
	}
	if s := rep.String(); !strings.Contains(s, "stale") || !strings.Contains(s, codeV1.Source) {
		t.Errorf("report %q does not say what was stale", s)
	}

	// Other params: stale, naming the field.
	p2 := p
	p2.Seeds = []uint64{1, 2, 3}
	rep, err = storedAt(t, path, codeV2, p2, ReuseCurrent).Load(&v)
	if !errors.Is(err, ErrNoStored) || !strings.Contains(rep.Why, "other params (differ in Seeds)") {
		t.Fatalf("other params: report %+v, %v", rep, err)
	}
	got, _, err = LoadOrRun(storedAt(t, path, codeV2, p2, ReuseCurrent), compute(storedValue{Name: "p2"}))
	if err != nil || got.Name != "p2" || computed != 3 {
		t.Fatalf("other params: computed %d, %+v, %v", computed, got, err)
	}

	// A failing computation stores nothing.
	boom := errors.New("boom")
	_, _, err = LoadOrRun(storedAt(t, path, codeV1, p, ReuseCurrent), func() (storedValue, error) { return storedValue{}, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error %v", err)
	}
	if rep, err := storedAt(t, path, codeV2, p2, ReuseCurrent).Load(&v); err != nil || v.Name != "p2" {
		t.Fatalf("the file changed after a failed computation: %+v %v", rep, err)
	}
}

// TestStoredOldFile: a file written before versions (a bare value) is
// readable but stale.
func TestStoredOldFile(t *testing.T) {
	t.Setenv(ReuseEnv, "")
	path := filepath.Join(t.TempDir(), "nb07-quick.json")
	writeFile(t, path, `{"Rows":[1,2],"Name":"old"}`)
	var v storedValue
	rep, err := storedAt(t, path, codeV1, storedSettings{}, ReuseCurrent).Load(&v)
	if !errors.Is(err, ErrNoStored) || !strings.Contains(rep.Why, "written before code versions were recorded") {
		t.Fatalf("old file: report %+v, %v", rep, err)
	}
	rep, err = storedAt(t, path, codeV1, storedSettings{}, ReuseStale).Load(&v)
	if err != nil || v.Name != "old" || rep.Status != StoredStaleReused || !strings.Contains(rep.String(), "stored without a code version") {
		t.Fatalf("old file, stale policy: report %v, value %+v, %v", rep, v, err)
	}
	// Not JSON: never reused, and LoadOrRun replaces it.
	writeFile(t, path, `{"Rows":[1,`)
	if _, err := storedAt(t, path, codeV1, nil, ReuseStale).Load(&v); !errors.Is(err, ErrNoStored) {
		t.Fatalf("cut file: %v", err)
	}
	got, rep, err := LoadOrRun(storedAt(t, path, codeV1, nil, ReuseStale), func() (storedValue, error) { return storedValue{Name: "new"}, nil })
	if err != nil || got.Name != "new" || rep.Status != StoredComputed {
		t.Fatalf("cut file: %+v %+v %v", got, rep, err)
	}
	t.Setenv(ReuseEnv, "maybe")
	if _, err := (Stored{Path: path}).Load(&v); err == nil || !strings.Contains(err.Error(), ReuseEnv) {
		t.Fatalf("bad %s accepted: %v", ReuseEnv, err)
	}
}

// TestStoredAtomicWrite: a failed save leaves the old file whole and no
// temporary file; readers during saves only ever see whole files.
func TestStoredAtomicWrite(t *testing.T) {
	t.Setenv(ReuseEnv, "")
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	s := storedAt(t, path, codeV1, storedSettings{Tol: 1}, ReuseCurrent)
	if err := s.Save(storedValue{Name: "first"}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// A value that cannot be written: the file is untouched.
	if err := s.Save(make(chan int)); err == nil {
		t.Fatal("a chan was saved")
	}
	// The rename fails (the target is a folder): no temporary file is left.
	target := filepath.Join(dir, "folder.json")
	os.Mkdir(target, 0o755)
	os.WriteFile(filepath.Join(target, "x"), nil, 0o644)
	if err := storedAt(t, target, codeV1, nil, ReuseCurrent).Save(storedValue{}); err == nil {
		t.Fatal("saved over a folder")
	}
	after, _ := os.ReadFile(path)
	if string(after) != string(before) {
		t.Fatal("a failed save changed the file")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("folder holds %v, want r.json and folder.json only", names)
	}
	// Concurrent saves of large values and loads: a load sees a whole file.
	big := func(name string) storedValue {
		v := storedValue{Name: name, Rows: make([]float64, 200000)}
		for i := range v.Rows {
			v.Rows[i] = float64(i) / 3
		}
		return v
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 10 {
			if err := s.Save(big(string(rune('a' + i)))); err != nil {
				t.Error(err)
			}
		}
	})
	for range 30 {
		var v storedValue
		if _, err := s.Load(&v); err != nil {
			t.Fatalf("a load during saves: %v", err)
		}
		if v.Name != "first" && len(v.Rows) != 200000 {
			t.Fatalf("a load saw %d rows", len(v.Rows))
		}
	}
	wg.Wait()
}
