package grid

// Estimate is an Options.Cost from the rows of an earlier run (of older
// code, say, or of another profile's grid of the same jobs): a job's
// seconds in its own row when there is one, else the mean over the rows
// that differ from it only in the fold, else over those of its set and
// tag, else over all rows; with no rows, 0 for every job (Run then starts
// ready jobs in the order given). Failed rows are left out: their time is
// not the fit's.
func Estimate(rows []Result) func(Job) float64 {
	type mean struct{ sum, n float64 }
	exact := map[string]float64{}
	byFold, bySet := map[Job]*mean{}, map[[2]string]*mean{}
	var all mean
	add := func(m *mean, s float64) { m.sum += s; m.n++ }
	for _, r := range rows {
		if r.Error != "" || !(r.Seconds >= 0) {
			continue
		}
		exact[r.Key()] = r.Seconds
		k := r.Job
		k.Fold = 0
		if byFold[k] == nil {
			byFold[k] = &mean{}
		}
		add(byFold[k], r.Seconds)
		s := [2]string{r.Set, r.Tag}
		if bySet[s] == nil {
			bySet[s] = &mean{}
		}
		add(bySet[s], r.Seconds)
		add(&all, r.Seconds)
	}
	return func(j Job) float64 {
		if s, ok := exact[j.Key()]; ok {
			return s
		}
		k := j
		k.Fold = 0
		if m := byFold[k]; m != nil {
			return m.sum / m.n
		}
		if m := bySet[[2]string{j.Set, j.Tag}]; m != nil {
			return m.sum / m.n
		}
		if all.n > 0 {
			return all.sum / all.n
		}
		return 0
	}
}
