package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/probably-submodular/crf/psub/maxflow"
)

// maxflowResult is the JSON object printed by "psub maxflow".
type maxflowResult struct {
	File         string  `json:"file"`
	Nodes        int     `json:"nodes"` // as declared in the file, s and t included
	Arcs         int     `json:"arcs"`
	Flow         float64 `json:"flow"`
	BuildSeconds float64 `json:"build_seconds"` // graph from the parsed arcs
	Seconds      float64 `json:"seconds"`       // the max-flow solve
	Repeat       int     `json:"repeat"`        // timings are the minimum over this many runs
	// CPU time of the thread doing the build and the solve (Linux only):
	// on a busy machine it is much steadier than wall-clock time.
	BuildCPUSeconds *float64 `json:"build_cpu_seconds,omitempty"`
	CPUSeconds      *float64 `json:"cpu_seconds,omitempty"`
}

// runMaxflow solves one DIMACS max-flow problem with Boykov–Kolmogorov.
// Parsing is excluded from both timings.
func runMaxflow(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("maxflow", "psub maxflow [-repeat 1] FILE.max", stdout)
	fs.after = func(w io.Writer) {
		fmt.Fprintln(w, "\nFILE.max is a DIMACS max-flow problem (format: psub/maxflow/FORMATS.md).")
	}
	repeat := fs.Int("repeat", 1, "build and solve this many times and report the fastest (for timing on a busy machine)")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageErr("want one DIMACS file, got %d arguments", fs.NArg())
	}
	if *repeat < 1 {
		return fs.usageErr("-repeat %d: want >= 1", *repeat)
	}
	name := fs.Arg(0)
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	p, err := maxflow.Read(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	res := maxflowResult{File: name, Nodes: p.Nodes, Arcs: len(p.Arcs), Repeat: *repeat}
	// One OS thread for the timed work, so that its CPU time is the work's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	minInto := func(dst **float64, v float64, ok bool) {
		if ok && (*dst == nil || v < **dst) {
			*dst = &v
		}
	}
	for r := range *repeat {
		c0, ok0 := threadCPU()
		t0 := time.Now()
		g := p.Build()
		t1 := time.Now()
		c1, ok1 := threadCPU()
		// Collect the garbage of parsing and earlier repeats now, so that
		// no GC cycle overlaps the timed solve.
		runtime.GC()
		c2, ok2 := threadCPU()
		t2 := time.Now()
		flow := g.MaxFlow()
		t3 := time.Now()
		c3, ok3 := threadCPU()
		b, s := t1.Sub(t0).Seconds(), t3.Sub(t2).Seconds()
		if r == 0 || b < res.BuildSeconds {
			res.BuildSeconds = b
		}
		if r == 0 || s < res.Seconds {
			res.Seconds = s
		}
		minInto(&res.BuildCPUSeconds, c1-c0, ok0 && ok1)
		minInto(&res.CPUSeconds, c3-c2, ok2 && ok3)
		res.Flow = flow
	}
	return writeJSON(stdout, res)
}
