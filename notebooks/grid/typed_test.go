package grid_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// seedJob is a typed job whose seed is the "fold" column.
type seedJob struct {
	Dataset string `json:"dataset"`
	Seed    int    `json:"fold"`
}

// seedMetrics has a metric that only odd seeds have.
type seedMetrics struct {
	Acc  float64   `json:"acc"`
	Done grid.Flag `json:"done"`
	*Odd
}

type Odd struct {
	Half float64 `json:"half"`
}

func TestRunTyped(t *testing.T) {
	file := filepath.Join(t.TempDir(), "r.jsonl")
	jobs := []seedJob{{"toy", 1}, {"toy", 2}, {"toy", 3}}
	fit := func(_ context.Context, j seedJob) (seedMetrics, error) {
		if j.Seed == 3 {
			return seedMetrics{}, errors.New("no")
		}
		m := seedMetrics{Acc: float64(j.Seed) / 4, Done: true}
		if j.Seed%2 == 1 {
			m.Odd = &Odd{Half: 0.5}
		}
		return m, nil
	}
	rows, err := grid.RunTyped(context.Background(), jobs, fit, grid.Options{Results: file, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].Job != jobs[0] || rows[0].Metrics.Acc != 0.25 || !bool(rows[0].Metrics.Done) || rows[0].Metrics.Odd == nil ||
		rows[1].Metrics.Odd != nil || rows[2].Error != "no" {
		t.Fatalf("rows %+v", rows)
	}
	b, _ := os.ReadFile(file)
	lines := strings.Split(string(b), "\n")
	if !strings.HasPrefix(lines[0], `{"dataset":"toy","set":"","loss":"","c":0,"fold":1,"metrics":{"acc":0.25,"done":1,"half":0.5},`) ||
		!strings.Contains(lines[1], `"metrics":{"acc":0.5,"done":1},`) {
		t.Errorf("file:\n%s", b)
	}
	rs, err := grid.ReadResults(file)
	if err != nil {
		t.Fatal(err)
	}
	back, err := grid.Rows[seedJob, seedMetrics](rs)
	if err != nil || back[1].Job.Seed != 2 || back[0].Metrics.Half != 0.5 || back[1].Metrics.Odd != nil {
		t.Errorf("read back %+v, %v", back, err)
	}
	// A row that does not read as the types is refused, naming it.
	rs[0].Metrics["done"] = 1
	if back2, err := grid.Rows[seedJob, struct {
		Done string `json:"done"`
	}](rs); err == nil || !strings.Contains(err.Error(), "toy|||0|1|") || back2[0].Error == "" || back2[2].Error != "no" {
		t.Errorf("bad metrics: %v", err)
	}
}

// A fit whose metrics JSON cannot hold (NaN) fails its row, naming the job.
func TestFuncNaN(t *testing.T) {
	fn := grid.Func(func(context.Context, seedJob) (seedMetrics, error) { return seedMetrics{Acc: math.NaN()}, nil })
	if _, err := fn(context.Background(), grid.Job{Dataset: "toy", Fold: 3}); err == nil || !strings.Contains(err.Error(), "toy|||0|3|") {
		t.Errorf("NaN metric: %v", err)
	}
}
