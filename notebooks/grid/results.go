package grid

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/probably-submodular/crf/internal/jsontext"
)

// ReadResults reads a JSON Lines results file written by Run. A job
// that was run again (it had failed, or its row was stale) has several
// rows; the last one wins (in the place of the first). It does not judge
// staleness: after Run the newest row of each of its jobs is the one it
// returned.
func ReadResults(path string) ([]Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rs []Result
	at := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	line := 1
	for ; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		ln := sc.Bytes()
		if line == 1 {
			ln = jsontext.TrimBOM(ln)
		}
		r, _, err := readRow(path, line, ln)
		if err != nil {
			return nil, err
		}
		if i, ok := at[r.Key()]; ok {
			rs[i] = r
			continue
		}
		at[r.Key()] = len(rs)
		rs = append(rs, r)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: a line longer than 16 MiB: not a results file", path, line)
	}
	return rs, sc.Err()
}

// WriteResultsJSONL writes the results as JSON Lines, one row per line, as
// Run appends them (ReadResults reads them back).
func WriteResultsJSONL(w io.Writer, rs []Result) error {
	for _, r := range rs {
		if err := appendResult(w, r); err != nil {
			return err
		}
	}
	return nil
}

// NewestRows reads the newest row of each of jobs from results, in the
// jobs' order, skipping jobs without a row.
func NewestRows(results string, jobs []Job) ([]Result, error) {
	all, err := ReadResults(results)
	if err != nil {
		return nil, err
	}
	by := map[string]Result{}
	for _, r := range all {
		by[r.Key()] = r
	}
	var out []Result
	for _, j := range jobs {
		if r, ok := by[j.Key()]; ok {
			out = append(out, r)
		}
	}
	return out, nil
}
