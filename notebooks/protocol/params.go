package protocol

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"math"

	"github.com/probably-submodular/crf/psub"
)

// InstancesDigest is a short hash of instances' content (name, labels,
// unary and pairwise features, edges), for the params of results that
// depend on the data: the same data set read from other files, or built
// otherwise, gives another digest.
func InstancesDigest(sets ...[]psub.Instance) string {
	h := sha256.New()
	var buf []byte // one row at a time: a whole EM volume is ~1 GB of features
	num := func(x uint64) { buf = binary.LittleEndian.AppendUint64(buf, x) }
	flush := func() {
		h.Write(buf)
		buf = buf[:0]
	}
	rows := func(m [][]float64) {
		num(uint64(len(m)))
		for _, r := range m {
			num(uint64(len(r)))
			for _, v := range r {
				num(math.Float64bits(v))
			}
			flush()
		}
	}
	for _, set := range sets {
		num(uint64(len(set)))
		for _, in := range set {
			num(uint64(len(in.Name)))
			buf = append(buf, in.Name...)
			num(uint64(len(in.Labels)))
			for _, l := range in.Labels {
				num(uint64(int64(l)))
			}
			num(uint64(len(in.Edges)))
			for _, e := range in.Edges {
				num(uint64(int64(e[0])))
				num(uint64(int64(e[1])))
			}
			flush()
			rows(in.DenseUnary()) // the same digest for sparse features
			rows(in.DensePairwise())
		}
	}
	flush()
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// SegmentationParams is what the results of a SegmentationExperiment depend
// on besides the job: its settings and a digest of its images and folds.
// Workers, ModelDir and Checkpoints change where and how fast, not what.
type SegmentationParams struct {
	HoldOut   float64
	Selection []int
	Seed      uint64
	Tol       float64
	MaxIter   int
	Delayed   bool
	AddK      int
	Cache     int
	PyStructC bool
	Warm      bool   // fits start from their predecessor's working set (WarmStarts)
	Data      string // InstancesDigest of the items
	Folds     string // digest of the fold assignment
	// TightBounds: C4's and C̄4's margins skipped by anchored bounds
	// (omitted when off: the params of experiments without it are kept).
	TightBounds bool `json:",omitempty"`
}

// Params returns e's SegmentationParams, for grid.Options.Params.
func (e *SegmentationExperiment) Params() SegmentationParams {
	items := make([]psub.Instance, len(e.Items))
	for i, it := range e.Items {
		items[i] = it.Instance
	}
	folds, _ := json.Marshal(e.Folds) // a []Fold of ints always marshals
	sum := sha256.Sum256(folds)
	return SegmentationParams{HoldOut: e.HoldOut, Selection: e.Selection, Seed: e.Seed, Tol: e.Tol, MaxIter: e.MaxIter,
		Delayed: e.Delayed, AddK: e.AddK, Cache: e.Cache, PyStructC: e.PyStructC, Warm: e.Warm != nil,
		Data: InstancesDigest(items), Folds: hex.EncodeToString(sum[:])[:16], TightBounds: e.TightBounds}
}
