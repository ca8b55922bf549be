package protocol

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/probably-submodular/crf/notebooks/grid"
)

// Shard is part I of N of a grid (1 ≤ I ≤ N, numbered like Slurm's
// --array=1-N). The zero value is the whole grid.
type Shard struct{ I, N int }

// ParseShard reads "i/n"; "" is the whole grid.
func ParseShard(s string) (Shard, error) {
	if s == "" {
		return Shard{}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 1 ≤ i ≤ n, e.g. 2/8", s)
	}
	return Shard{I: i, N: n}, nil
}

// All reports whether the shard is the whole grid.
func (s Shard) All() bool { return s.N <= 1 }

func (s Shard) String() string {
	if s.All() {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.I, s.N)
}

// groupOrder numbers the groups of jobs in the order of their first job.
func groupOrder(jobs []grid.Job, group func(grid.Job) string) map[string]int {
	order := map[string]int{}
	for _, j := range jobs {
		g := group(j)
		if _, ok := order[g]; !ok {
			order[g] = len(order)
		}
	}
	return order
}

// pick keeps the jobs of the shard's groups: group number g (in order) goes
// to shard g mod N + 1, so consecutive groups spread over the shards. Groups
// not in order (listed only after earlier rows exist) are numbered after the
// known ones, in order of appearance.
func (s Shard) pick(jobs []grid.Job, group func(grid.Job) string, order map[string]int) []grid.Job {
	if s.All() {
		return jobs
	}
	var out []grid.Job
	for _, j := range jobs {
		g := group(j)
		k, ok := order[g]
		if !ok {
			k = len(order)
			order[g] = k
		}
		if k%s.N == s.I-1 {
			out = append(out, j)
		}
	}
	return out
}
