package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
)

func runOK(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("psub %s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
	}
	var got map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v: %q", err, out.String())
	}
	return got
}

func runFail(t *testing.T, want string, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code == 0 || !strings.Contains(errb.String(), want) {
		t.Fatalf("psub %s: exit %d, stderr %q; want failure mentioning %q", strings.Join(args, " "), code, errb.String(), want)
	}
}

func TestExportTrainPredict(t *testing.T) {
	dir := t.TempDir()
	ex := runOK(t, "export", "-dataset", "synthetic", "-o", dir, "-seed", "3")
	if files := ex["files"].([]any); len(files) != 2 {
		t.Fatalf("export wrote %v", files)
	}
	train, test := filepath.Join(dir, "train.jsonl"), filepath.Join(dir, "test.jsonl")
	acc := map[string]float64{}
	for _, set := range []string{"C1", "C4"} {
		model := filepath.Join(dir, set+".json")
		got := runOK(t, "train", "-train", train, "-test", test, "-set", set, "-C", "1", "-tol", "1e-2", "-o", model)
		for _, k := range []string{"train_accuracy", "test_accuracy", "primal", "dual", "iterations", "seconds",
			"margins_computed", "hard_constraints_active", "hard_constraints_introduced", "nonsubmodular_test_edge_fraction"} {
			if _, ok := got[k]; !ok {
				t.Fatalf("train output lacks %q: %v", k, got)
			}
		}
		if got["set"] != set || got["labels"].(float64) != 2 {
			t.Fatalf("train output %v", got)
		}
		acc[set] = got["test_accuracy"].(float64)
		preds := filepath.Join(dir, set+".pred.jsonl")
		p := runOK(t, "predict", "-model", model, "-data", test, "-o", preds)
		if p["accuracy"].(float64) != acc[set] {
			t.Fatalf("predict accuracy %v, train reported %v", p["accuracy"], acc[set])
		}
		b, err := os.ReadFile(preds)
		if err != nil || bytes.Count(b, []byte{'\n'}) != 20 {
			t.Fatalf("predictions file: %d lines, %v", bytes.Count(b, []byte{'\n'}), err)
		}
	}
	if acc["C4"] <= acc["C1"] {
		t.Fatalf("C4 test accuracy %v not above C1 %v on the synthetic problem", acc["C4"], acc["C1"])
	}
	// -pystruct-c converts the paper's C: with Hamming, C·n/k̄ for n images
	// of k̄ nodes on average.
	set, err := data.ReadJSONLFile(train, 0)
	if err != nil {
		t.Fatal(err)
	}
	nodes := 0
	for _, in := range set {
		nodes += in.Nodes()
	}
	want := 2 * float64(len(set)) / (float64(nodes) / float64(len(set)))
	got := runOK(t, "train", "-train", train, "-set", "C2", "-C", "2", "-pystruct-c", "-tol", "1e-2")
	if c := got["C_psub"].(float64); got["C"].(float64) != 2 || math.Abs(c-want) > 1e-12*want {
		t.Fatalf("-pystruct-c: C %v, C_psub %v; want 2 and %v", got["C"], c, want)
	}
	// The exported multi-label problem trains too (a handful of examples).
	ml := filepath.Join(dir, "ml")
	runOK(t, "export", "-dataset", "synthetic-multilabel", "-o", ml)
	got = runOK(t, "train", "-train", filepath.Join(ml, "test.jsonl"), "-set", "C2", "-C", "0.1", "-tol", "1e-2", "-max-iter", "20")
	if got["unary_dim"].(float64) != 5*13 || got["pairwise_dim"].(float64) != 10*24 {
		t.Fatalf("multi-label dims %v/%v", got["unary_dim"], got["pairwise_dim"])
	}
}

func TestDataCommandErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "g.jsonl")
	bad := filepath.Join(dir, "b.jsonl")
	other := filepath.Join(dir, "o.jsonl")
	os.WriteFile(good, []byte(`{"unary":[[1,0],[0,1]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,1]}`+"\n"), 0o644)
	os.WriteFile(bad, []byte(`{"unary":[[1,0],[0,1]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,1]}`+"\n"+`{"unary":[[1,0]],"edges":[[0,5]],"pairwise":[[1]]}`+"\n"), 0o644)
	os.WriteFile(other, []byte(`{"unary":[[1,0,3]],"edges":[],"pairwise":[]}`+"\n"), 0o644)
	model := filepath.Join(dir, "m.json")
	runOK(t, "train", "-train", good, "-set", "C2", "-o", model, "-max-iter", "5")
	runFail(t, "-train is required", "train")
	runFail(t, "b.jsonl:2:", "train", "-train", bad)
	runFail(t, "-set \"C9\"", "train", "-train", good, "-set", "C9")
	runFail(t, "-loss \"l2\"", "train", "-train", good, "-loss", "l2")
	runFail(t, "needs -test", "train", "-train", good, "-set", "C4bar")
	runFail(t, "-C 0: out of range; want a number in (0, +Inf)", "train", "-train", good, "-C", "0")
	runFail(t, "has no labels", "train", "-train", other)
	runFail(t, "the model", "predict", "-model", model, "-data", other)
	runFail(t, "-model and -data are required", "predict", "-data", good)
	runFail(t, "unknown; known:", "export", "-dataset", "msrc", "-o", dir)
	runFail(t, "-dataset and -o are required", "export", "-dataset", "synthetic")
}

func TestExportCowsReduced(t *testing.T) {
	if testing.Short() {
		t.Skip("builds superpixels of two images")
	}
	if _, err := data.Find("", "tud_cows"); err != nil {
		t.Skipf("data not available: %v", err)
	}
	dir := t.TempDir()
	got := runOK(t, "export", "-dataset", "cows", "-limit", "2", "-downscale", "4", "-no-cache", "-o", dir)
	files := got["files"].([]any)
	f := files[0].(map[string]any)
	if len(files) != 1 || f["instances"].(float64) != 2 || f["unary_dim"].(float64) != 125 || f["pairwise_dim"].(float64) != 125 {
		t.Fatalf("export: %v", got)
	}
	if !strings.Contains(got["description"].(string), "REDUCED") {
		t.Fatalf("a reduced build must say so: %q", got["description"])
	}
	set, err := data.ReadJSONLFile(filepath.Join(dir, "cows.jsonl"), 2)
	if err != nil || len(set) != 2 {
		t.Fatalf("%d instances: %v", len(set), err)
	}
}

// -checkpoint: a training stopped by -max-iter goes on from its checkpoint
// when run again with more iterations, and says where it resumed.
func TestTrainCheckpoint(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "export", "-dataset", "synthetic", "-o", dir, "-seed", "4")
	train, ckpt := filepath.Join(dir, "train.jsonl"), filepath.Join(dir, "ckpt")
	args := []string{"train", "-train", train, "-set", "C4", "-delayed", "-C", "1", "-tol", "1e-3", "-checkpoint", ckpt}
	first := runOK(t, append(args, "-max-iter", "3")...)
	if first["converged"] != false || first["resumed_after"] != nil {
		t.Fatalf("3 iterations: %v", first)
	}
	got := runOK(t, args...)
	if r, ok := got["resumed_after"].([]any); !ok || len(r) != 1 || r[0].(float64) != 3 || got["converged"] != true {
		t.Fatalf("second run: resumed_after %v, converged %v; want [3], true", got["resumed_after"], got["converged"])
	}
}

// Bad outputs and tolerances are refused before any training (issue 32:
// -o missing_dir/m.json and -o /dev/full used to fail after training, -tol
// Inf after it with "json: unsupported value"). Every case fails at once,
// with nothing trained: the test data would take seconds to train.
func TestTrainRefusesBeforeTraining(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "export", "-dataset", "synthetic", "-o", dir)
	train := filepath.Join(dir, "train.jsonl")
	for _, tc := range []struct {
		want string
		args []string
	}{
		{"-o " + filepath.Join(dir, "missing_dir", "m.json") + ": the folder " + filepath.Join(dir, "missing_dir") + " does not exist",
			[]string{"-o", filepath.Join(dir, "missing_dir", "m.json")}},
		{"-o /dev/full: not a regular file", []string{"-o", "/dev/full"}},
		{"-tol +Inf: out of range; want a number in (0, 1)", []string{"-tol", "Inf"}},
		{"-tol NaN: out of range", []string{"-tol", "NaN"}},
		{"-C +Inf: out of range", []string{"-C", "+Inf"}},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"train", "-train", train}, tc.args...)
		code := run(args, &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), tc.want) || strings.Contains(errb.String(), "  primal ") {
			t.Errorf("psub %s: exit %d, stderr %q; want a failure before training saying %q", strings.Join(args, " "), code, errb.String(), tc.want)
		}
	}
	if st, err := os.Stat("/dev/full"); err != nil || st.Mode().IsRegular() {
		t.Fatalf("/dev/full is no longer a device: %v", err)
	}
}

// The train output says whether the model is certified, in words, and
// never claims convergence at a scale where it is not: features ×10⁶ of
// the synthetic problem (issue 32: "converged" with gap 0.999).
func TestTrainReportsStatus(t *testing.T) {
	dir := t.TempDir()
	runOK(t, "export", "-dataset", "synthetic", "-o", dir)
	set, err := data.ReadJSONLFile(filepath.Join(dir, "train.jsonl"), 2)
	if err != nil {
		t.Fatal(err)
	}
	set = set[:6]
	good := filepath.Join(dir, "six.jsonl")
	if err := data.WriteJSONLFile(good, set); err != nil {
		t.Fatal(err)
	}
	got := runOK(t, "train", "-train", good, "-tol", "1e-2")
	if got["converged"] != true || !strings.HasPrefix(got["status"].(string), "converged: gap") || got["stop"] != "gap ≤ Tol" {
		t.Fatalf("unscaled: converged %v, status %q, stop %q", got["converged"], got["status"], got["stop"])
	}
	for i := range set {
		set[i].Densify() // the reader may have kept a matrix sparse
		for _, rows := range [][][]float64{set[i].Unary, set[i].Pairwise} {
			for _, r := range rows {
				for j := range r {
					r[j] *= 1e6
				}
			}
		}
	}
	big := filepath.Join(dir, "big.jsonl")
	if err := data.WriteJSONLFile(big, set); err != nil {
		t.Fatal(err)
	}
	got = runOK(t, "train", "-train", big, "-tol", "1e-2", "-max-iter", "200")
	status, _ := got["status"].(string)
	if got["converged"] != false || !strings.HasPrefix(status, "NOT converged") || !strings.Contains(status, "likely cause: scale") {
		t.Fatalf("features ×1e6: converged %v, gap %v, status %q; want NOT converged naming the scale", got["converged"], got["gap"], status)
	}
	t.Logf("features ×1e6: gap %v: %s", got["gap"], status)
}
