package grid

// estimator estimates a job's cost from the rows of the results file and
// of the jobs finished so far (Run adds each row as its job finishes): the
// job's seconds in its own row when there is one, else the mean over the
// rows that differ from it only in the fold, else over those of its set and
// tag (stage), else of its set, else over all rows; with no rows, 0 for
// every job (Run then starts ready jobs in the order given). Failed rows
// are left out: their time is not the fit's.
type estimator struct {
	exact map[string]float64
	// means are keyed by the groups of a job, finest first (groups).
	means map[any]*mean
}

type mean struct{ sum, n float64 }

// setTag is a job's set and tag (stage).
type setTag struct{ set, tag string }

// groups are the keys of j's groups, finest first: its job but for the
// fold, its set and tag, its set, and all rows (nil).
func groups(j Job) [4]any {
	j.Fold = 0
	return [4]any{j, setTag{j.Set, j.Tag}, j.Set, nil}
}

func newEstimator() *estimator {
	return &estimator{exact: map[string]float64{}, means: map[any]*mean{}}
}

func (e *estimator) add(r Result) {
	if r.Error != "" || !(r.Seconds >= 0) {
		return
	}
	e.exact[r.Key()] = r.Seconds
	for _, k := range groups(r.Job) {
		if e.means[k] == nil {
			e.means[k] = &mean{}
		}
		e.means[k].sum += r.Seconds
		e.means[k].n++
	}
}

// costOf is the cost of j, given its key (the scheduler asks for the same
// jobs' costs over and over).
func (e *estimator) costOf(key string, j Job) float64 {
	if s, ok := e.exact[key]; ok {
		return s
	}
	for _, k := range groups(j) {
		if m := e.means[k]; m != nil {
			return m.sum / m.n
		}
	}
	return 0
}
