package protocol

import (
	"context"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
)

// plainRun is what Run computes for a C4 or C4bar job, Hamming loss, on
// e's current items, by psub.Train and EvaluateWith on the picked
// instances (no prepared set): the primal, the iterations and the score.
func plainRun(t *testing.T, e *SegmentationExperiment, job grid.Job) (primal, iters, acc float64) {
	t.Helper()
	fold := e.Folds[job.Fold]
	trainIdx, testIdx := fold.Train, fold.Test
	if job.Tag == "select" {
		var err error
		if trainIdx, testIdx, err = data.HoldOut(fold.Train, 0.2, e.Seed+uint64(job.Fold)); err != nil {
			t.Fatal(err)
		}
	}
	col, err := ColumnByName(job.Set, e.pick(testIdx))
	if err != nil {
		t.Fatal(err)
	}
	s := psub.Settings{Set: col.Set, Loss: psub.Hamming{}, C: job.C, Tol: DefaultTol, Delayed: e.Delayed, Workers: 1}
	m, tr, err := psub.Train(e.pick(trainIdx), 2, s)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := m.EvaluateWith(e.pick(testIdx), col.Test)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Final().Primal, float64(tr.Iters), ev.Accuracy
}

// TestRunPreparedFollowsItems: Run, which trains and scores subsets of
// the items prepared once, gives what psub.Train and EvaluateWith give
// on the picked instances, and prepares again when the items change: a
// replaced item, or an instance given other slices, is trained and scored
// as it is now, never as it was prepared.
func TestRunPreparedFollowsItems(t *testing.T) {
	items, folds := syntheticItems(t, 3, 8, 4)
	other, _ := syntheticItems(t, 4, 8, 4)
	e := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Delayed: true}
	check := func(when string, job grid.Job) float64 {
		t.Helper()
		m, err := e.Run(context.Background(), job)
		if err != nil {
			t.Fatal(err)
		}
		primal, iters, acc := plainRun(t, e, job)
		score := "test_acc"
		if job.Tag == "select" {
			score = "val_acc"
		}
		if m["primal"] != primal || m["iterations"] != iters || m[score] != acc {
			t.Fatalf("%s: %s: Run primal %v, %v iterations, %s %v; plain %v, %v, %v",
				when, job.Key(), m["primal"], m["iterations"], score, m[score], primal, iters, acc)
		}
		return primal
	}
	jobs := []grid.Job{
		{Dataset: "synthetic", Set: "C4", Loss: "hamming", C: 10, Fold: 0, Tag: "select"},
		{Dataset: "synthetic", Set: "C4bar", Loss: "hamming", C: 10, Fold: 1, Tag: "final"},
	}
	var before []float64
	for _, j := range jobs {
		before = append(before, check("first", j))
	}
	// Replace items of both folds' training images, then give one
	// instance new slices (a copy of its unary rows, changed).
	for k := range items {
		if k%3 == 0 {
			items[k] = other[k]
		}
	}
	in := &items[1].Instance
	unary := make([][]float64, len(in.Unary))
	for k, row := range in.Unary {
		unary[k] = append([]float64(nil), row...)
		unary[k][0] += 0.5
	}
	in.Unary = unary
	for i, j := range jobs {
		if after := check("after the change", j); after == before[i] {
			t.Fatalf("%s: the same primal %v after the items changed: the test changes nothing", j.Key(), after)
		}
	}
}

// TestSharePrepared: experiments on the same items prepare them once
// between them, and one on other items that shares the cache still trains
// on its own items.
func TestSharePrepared(t *testing.T) {
	items, folds := syntheticItems(t, 3, 8, 4)
	other, _ := syntheticItems(t, 4, 8, 4)
	a := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Delayed: true}
	b := &SegmentationExperiment{Items: items, Folds: folds, Seed: 1, Workers: 1, Delayed: true}
	c := &SegmentationExperiment{Items: other, Folds: folds, Seed: 1, Workers: 1, Delayed: true}
	a.SharePrepared(b)
	a.SharePrepared(c)
	pa, err := a.prepared()
	if err != nil {
		t.Fatal(err)
	}
	if pb, err := b.prepared(); err != nil || pb != pa {
		t.Fatalf("b prepared its own set (%v)", err)
	}
	job := grid.Job{Dataset: "synthetic", Set: "C4", Loss: "hamming", C: 10, Fold: 0, Tag: "final"}
	m, err := c.Run(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	if primal, iters, acc := plainRun(t, c, job); m["primal"] != primal || m["iterations"] != iters || m["test_acc"] != acc {
		t.Fatalf("c trained on other items than its own: primal %v, want %v", m["primal"], primal)
	}
	if pc, _ := c.prepared(); pc == pa {
		t.Fatal("c's items were not prepared")
	}
}
