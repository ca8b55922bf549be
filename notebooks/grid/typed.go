package grid

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/probably-submodular/crf/internal/codever"
)

// Row is a row of a results file as its experiment declares it: the job J
// and the metrics M are the experiment's own structs, whose JSON field
// names are the file's columns and metric names. A job struct names the
// columns of Job it uses ("dataset", "set", "loss", "c", "fold", "tag":
// a tradeoff job's Seed is `json:"fold"`) or writes them itself
// (MarshalJSON/UnmarshalJSON); a metrics struct has one number per metric
// (Flag for yes/no), and a metric that only some rows have goes in an
// embedded pointer to a struct of those metrics, nil when absent.
type Row[J, M any] struct {
	Job     J
	Metrics M
	Detail  json.RawMessage // as Result.Detail
	Seconds float64
	Error   string
	Code    codever.CodeVersion // as Result.Code
}

// Result is the row as a results file holds it (Params left empty).
func (r Row[J, M]) Result() (Result, error) {
	c, err := recode[Job](r.Job)
	if err != nil {
		return Result{}, fmt.Errorf("grid: job %+v: %w", r.Job, err)
	}
	m, err := recode[Metrics](r.Metrics)
	if err != nil {
		return Result{}, fmt.Errorf("grid: row %s: %w", c.Key(), err)
	}
	return Result{Job: c, Metrics: m, Detail: r.Detail, Seconds: r.Seconds, Error: r.Error, Code: r.Code}, nil
}

// Flag is a yes/no metric, 1 or 0 in a results file.
type Flag bool

// MarshalJSON writes 1 or 0.
func (f Flag) MarshalJSON() ([]byte, error) {
	if f {
		return []byte("1"), nil
	}
	return []byte("0"), nil
}

// UnmarshalJSON reads a number: 1 is yes, 0 no.
func (f *Flag) UnmarshalJSON(b []byte) error {
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = v == 1
	return nil
}

// recode writes from as JSON and reads it into a new T: how a typed job or
// metrics struct becomes a Job or a Metrics map and back.
func recode[T any](from any) (T, error) {
	var to T
	b, err := json.Marshal(from)
	if err == nil {
		err = json.Unmarshal(b, &to)
	}
	return to, err
}

// Cells are the jobs as their results file names them.
func Cells[J any](jobs []J) ([]Job, error) {
	out := make([]Job, len(jobs))
	for i, j := range jobs {
		c, err := recode[Job](j)
		if err != nil {
			return nil, fmt.Errorf("grid: job %+v: %w", j, err)
		}
		out[i] = c
	}
	return out, nil
}

// Func is fn as a JobFunc: it reads each Job as a J and returns the
// metrics of fn as the row's Metrics.
func Func[J, M any](fn func(context.Context, J) (M, error)) JobFunc {
	return func(ctx context.Context, c Job) (map[string]float64, error) {
		j, err := recode[J](c)
		if err != nil {
			return nil, fmt.Errorf("job %s: %w", c.Key(), err)
		}
		m, err := fn(ctx, j)
		if err != nil {
			return nil, err
		}
		out, err := recode[Metrics](m)
		if err != nil { // a NaN, say: a bug of the fit, not data
			return nil, fmt.Errorf("metrics of job %s: %w", c.Key(), err)
		}
		return out, nil
	}
}

// Metrics are the numbers of an untyped row (Result.Metrics).
type Metrics = map[string]float64

// Rows reads results as rows of jobs J and metrics M. A row that does not
// read as those types is kept as a failed row (its Error says why) and the
// first such error is returned, so that a caller that skips failed rows
// may go on.
func Rows[J, M any](rs []Result) ([]Row[J, M], error) {
	out := make([]Row[J, M], len(rs))
	var first error
	for i, r := range rs {
		out[i] = Row[J, M]{Detail: r.Detail, Seconds: r.Seconds, Error: r.Error, Code: r.Code}
		var err error
		if out[i].Job, err = recode[J](r.Job); err == nil && r.Metrics != nil {
			out[i].Metrics, err = recode[M](r.Metrics)
		}
		if err != nil {
			out[i].Error = fmt.Sprintf("row %s does not read as %T, %T: %v", r.Key(), out[i].Job, out[i].Metrics, err)
			if first == nil {
				first = fmt.Errorf("grid: %s", out[i].Error)
			}
		}
	}
	return out, first
}

// RunTyped runs typed jobs as Run does (jobs J, fn's metrics M) and returns
// their rows.
func RunTyped[J, M any](ctx context.Context, jobs []J, fn func(context.Context, J) (M, error), opt Options) ([]Row[J, M], error) {
	cells, err := Cells(jobs)
	if err != nil {
		return nil, err
	}
	rs, err := Run(ctx, cells, Func(fn), opt)
	if rs == nil {
		return nil, err
	}
	rows, rerr := Rows[J, M](rs)
	if err == nil {
		err = rerr
	}
	return rows, err
}
