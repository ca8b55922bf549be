package grid

import "testing"

// line is jobs named x1..xN (independent) followed by a chain c1 → c2 →
// ... (each c waits for the one before), in that order.
func line(xs, cs int) []Job {
	var jobs []Job
	for i := range xs {
		jobs = append(jobs, Job{Dataset: "d", Set: "x", C: float64(i + 1)})
	}
	for i := range cs {
		jobs = append(jobs, Job{Dataset: "d", Set: "c", C: float64(i + 1)})
	}
	return jobs
}

// chainAfter makes a "c" job wait for the one at the C below.
func chainAfter(j Job) (Job, bool) {
	if j.Set != "c" || j.C == 1 {
		return Job{}, false
	}
	j.C--
	return j, true
}

func TestEstimate(t *testing.T) {
	row := func(set, tag string, c float64, fold int, sec float64) Result {
		return Result{Job: Job{Dataset: "d", Set: set, Loss: "l", C: c, Fold: fold, Tag: tag}, Seconds: sec}
	}
	failed := row("A", "select", 1, 2, 1000)
	failed.Error = "boom"
	e := newEstimator()
	for _, r := range []Result{
		row("A", "select", 1, 0, 2), row("A", "select", 1, 1, 4), failed,
		row("A", "select", 10, 0, 30), row("B", "final", 1, 0, 7),
	} {
		e.add(r)
	}
	for _, c := range []struct {
		job  Job
		want float64
	}{
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 1, Fold: 1, Tag: "select"}, 4},     // its own row
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 1, Fold: 2, Tag: "select"}, 3},     // folds 0 and 1 (the failed row left out)
		{Job{Dataset: "d", Set: "A", Loss: "l", C: 3, Fold: 0, Tag: "select"}, 12},    // set A's selection: (2+4+30)/3
		{Job{Dataset: "d", Set: "Z", Loss: "l", C: 1, Fold: 0, Tag: "select"}, 10.75}, // all rows: 43/4
	} {
		if got := e.costOf(c.job.Key(), c.job); got != c.want {
			t.Errorf("cost of %s = %g, want %g", c.job.Key(), got, c.want)
		}
	}
	if got := newEstimator().costOf("", Job{}); got != 0 {
		t.Errorf("no rows: %g, want 0", got)
	}
}
