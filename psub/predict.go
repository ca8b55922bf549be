package psub

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/probably-submodular/crf/psub/inference"
)

// Model is a trained pairwise CRF: the layout of w, the weights, and how
// they were obtained. It predicts by minimising −w·ψ(x,y).
type Model struct {
	Layout
	W           []float64 `json:"w"`
	Set         string    `json:"set"`
	C           float64   `json:"c"`
	Loss        string    `json:"loss"`
	Description string    `json:"description,omitempty"`
}

// check validates an instance against the model's dimensions.
func (m *Model) check(in *Instance) error {
	if err := in.Validate(0, m.UnaryDim, m.PairwiseDim, m.Labels); err != nil {
		return err
	}
	if len(in.Edges) > 0 && m.PairwiseDim == 0 && in.PairwiseDim() != 0 {
		return fmt.Errorf("instance has pairwise features, model has none")
	}
	return nil
}

// Energy returns the energy −w·ψ(x,·) of the instance for inference.
func (m *Model) Energy(in *Instance) (*inference.Energy, error) {
	if err := m.check(in); err != nil {
		return nil, err
	}
	e := inference.NewEnergy(in.Nodes(), m.Labels, in.Edges)
	m.Potentials(m.W, in, e.Unary, e.Pairwise)
	return e, nil
}

// Predict labels the instance: truncated graph cut (TGC) for two labels,
// αβ-swap otherwise. It also returns the number of edges that inference had
// to truncate because they were not submodular (0 for models trained with
// C0…C2* and, on the training edges, C3/C4).
func (m *Model) Predict(in *Instance) ([]int, int, error) {
	var method inference.Method = inference.TruncatedGraphCut{}
	if m.Labels != 2 {
		method = inference.AlphaBetaSwap{}
	}
	r, err := m.PredictWith(in, method)
	if err != nil {
		return nil, 0, err
	}
	return r.Labels, r.Truncated, nil
}

// PredictWith labels the instance with the given inference method.
func (m *Model) PredictWith(in *Instance, method inference.Method) (inference.Result, error) {
	e, err := m.Energy(in)
	if err != nil {
		return inference.Result{}, err
	}
	return method.Minimize(e)
}

// Score is w·ψ(x,y).
func (m *Model) Score(in *Instance, y []int) (float64, error) {
	if err := m.check(in); err != nil {
		return 0, err
	}
	if len(y) != in.Nodes() {
		return 0, fmt.Errorf("labelling has %d nodes, instance has %d", len(y), in.Nodes())
	}
	for k, v := range y {
		if v < 0 || v >= m.Labels {
			return 0, fmt.Errorf("node %d: label %d outside [0,%d)", k, v, m.Labels)
		}
	}
	return m.Layout.Score(m.W, in, y), nil
}

// NonSubmodularFraction is the fraction of the edges of set whose pairwise
// energy under the model is not submodular (paper table "tradeoff"); eps is
// the tolerance on the margin relative to ‖φ_p‖ (0 means 1e-9).
func (m *Model) NonSubmodularFraction(set []Instance, eps float64) (float64, error) {
	if eps == 0 {
		eps = 1e-9
	}
	for i := range set {
		in := set[i]
		in.Labels = nil
		if err := in.Validate(i, m.UnaryDim, m.PairwiseDim, m.Labels); err != nil {
			return 0, err
		}
	}
	bad, total := m.NonSubmodularEdges(m.W, set, eps)
	if total == 0 {
		return 0, nil
	}
	return float64(bad) / float64(total), nil
}

// modelFile is the JSON form of a Model; Version guards the layout.
type modelFile struct {
	Version int `json:"version"`
	*Model
}

const modelVersion = 1

// Save writes the model as JSON.
func (m *Model) Save(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(modelFile{Version: modelVersion, Model: m})
}

// SaveFile writes the model to a JSON file.
func (m *Model) SaveFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := m.Save(f); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// Load reads a model written by Save and checks it.
func Load(r io.Reader) (*Model, error) {
	mf := modelFile{Model: &Model{}}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mf); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if mf.Version != modelVersion {
		return nil, fmt.Errorf("model: version %d, want %d", mf.Version, modelVersion)
	}
	m := mf.Model
	if err := m.Layout.validate(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if len(m.W) != m.Dim() {
		return nil, fmt.Errorf("model: %d weights, layout (labels %d, du %d, dp %d, tied %v) needs %d",
			len(m.W), m.Labels, m.UnaryDim, m.PairwiseDim, m.Tied, m.Dim())
	}
	for i, v := range m.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("model: weight %d is %v", i, v)
		}
	}
	return m, nil
}

// LoadFile reads a model from a JSON file.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
