package grid

// estimator estimates a job's cost from the rows of the results file and
// of the jobs finished so far (Run adds each row as its job finishes): the
// job's seconds in its own row when there is one, else the mean over the
// rows that differ from it only in the fold, else over those of its set and
// tag (stage), else of its set, else over all rows; with no rows, 0 for
// every job (Run then starts ready jobs in the order given). Failed rows
// are left out: their time is not the fit's.
type estimator struct {
	exact  map[string]float64
	byFold map[Job]*mean
	byTag  map[[2]string]*mean // set and tag
	bySet  map[string]*mean
	all    mean
}

type mean struct{ sum, n float64 }

func (m *mean) add(s float64) { m.sum += s; m.n++ }

func newEstimator() *estimator {
	return &estimator{exact: map[string]float64{}, byFold: map[Job]*mean{}, byTag: map[[2]string]*mean{}, bySet: map[string]*mean{}}
}

func (e *estimator) add(r Result) {
	if r.Error != "" || !(r.Seconds >= 0) {
		return
	}
	e.exact[r.Key()] = r.Seconds
	k := r.Job
	k.Fold = 0
	if e.byFold[k] == nil {
		e.byFold[k] = &mean{}
	}
	e.byFold[k].add(r.Seconds)
	st := [2]string{r.Set, r.Tag}
	if e.byTag[st] == nil {
		e.byTag[st] = &mean{}
	}
	e.byTag[st].add(r.Seconds)
	if e.bySet[r.Set] == nil {
		e.bySet[r.Set] = &mean{}
	}
	e.bySet[r.Set].add(r.Seconds)
	e.all.add(r.Seconds)
}

// costOf is the cost of j, given its key (the scheduler asks for the same
// jobs' costs over and over).
func (e *estimator) costOf(key string, j Job) float64 {
	if s, ok := e.exact[key]; ok {
		return s
	}
	k := j
	k.Fold = 0
	if m := e.byFold[k]; m != nil {
		return m.sum / m.n
	}
	if m := e.byTag[[2]string{j.Set, j.Tag}]; m != nil {
		return m.sum / m.n
	}
	if m := e.bySet[j.Set]; m != nil {
		return m.sum / m.n
	}
	if e.all.n > 0 {
		return e.all.sum / e.all.n
	}
	return 0
}
