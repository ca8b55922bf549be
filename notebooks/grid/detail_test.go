package grid

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"sync/atomic"
	"testing"
)

// A job's detail reaches its row, the results file and a resumed run's
// rows; SetDetail outside a job fails.
func TestRunGridDetail(t *testing.T) {
	type curve struct{ X, Y []int }
	jobs := Jobs([]string{"d"}, []string{"A", "B"}, []string{"x"}, []float64{1}, 1)
	var calls atomic.Int32
	fn := func(ctx context.Context, j Job) (map[string]float64, error) {
		calls.Add(1)
		if j.Set == "B" { // no detail
			return map[string]float64{"m": 2}, nil
		}
		if err := SetDetail(ctx, curve{X: []int{0}, Y: []int{9}}); err != nil {
			return nil, err
		}
		return map[string]float64{"m": 1}, SetDetail(ctx, curve{X: []int{1, 2}, Y: []int{3, 4}}) // replaces
	}
	res := filepath.Join(t.TempDir(), "r.jsonl")
	check := func(rs []Result, when string) {
		t.Helper()
		by := map[string]Result{}
		for _, r := range rs {
			by[r.Set] = r
		}
		var c curve
		if err := json.Unmarshal(by["A"].Detail, &c); err != nil || !reflect.DeepEqual(c, curve{X: []int{1, 2}, Y: []int{3, 4}}) {
			t.Errorf("%s: detail of A %s (%v), want the second curve", when, by["A"].Detail, err)
		}
		if by["B"].Detail != nil || len(rs) != 2 {
			t.Errorf("%s: %d rows, detail of B %s; want 2 rows, B without detail", when, len(rs), by["B"].Detail)
		}
	}
	rs, err := Run(context.Background(), jobs, fn, Options{Workers: 2, Results: res, Reuse: ReuseCurrent})
	if err != nil {
		t.Fatal(err)
	}
	check(rs, "run")
	stored, err := ReadResults(res)
	if err != nil {
		t.Fatal(err)
	}
	check(stored, "results file")
	calls.Store(0)
	if rs, err = Run(context.Background(), jobs, fn, Options{Results: res, Reuse: ReuseCurrent}); err != nil || calls.Load() != 0 {
		t.Fatalf("resume ran %d jobs (%v)", calls.Load(), err)
	}
	check(rs, "resumed")
	if err := SetDetail(context.Background(), 1); err == nil {
		t.Error("SetDetail outside a job: no error")
	}
}
