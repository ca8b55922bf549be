package psub

import (
	"fmt"
	"math"

	"github.com/probably-submodular/crf/internal/membudget"
)

// dim64 is Layout.Dim computed without overflow: math.MaxInt64 when it
// does not fit (a crafted model file's 2⁶² labels).
func (l Layout) dim64() int64 {
	L := int64(l.Labels)
	blocks := membudget.Bytes(L, L)
	if l.Tied {
		blocks = membudget.Add(blocks, L) / 2
	}
	return membudget.Add(membudget.Bytes(L, int64(l.UnaryDim)), membudget.Bytes(blocks, int64(l.PairwiseDim)))
}

// checkDim refuses a layout whose Dim overflows int (where Dim, Blocks and
// every index would wrap).
func (l Layout) checkDim() error {
	if d := l.dim64(); d == math.MaxInt64 || d > math.MaxInt {
		return fmt.Errorf("%d labels with du=%d, dp=%d: the weight vector's length overflows", l.Labels, l.UnaryDim, l.PairwiseDim)
	}
	return nil
}

// trainVectors is how many weight-length vectors training keeps besides
// those of each worker (w, the best w, cutting planes being built, the
// QP's), a lower bound for the budget check.
const trainVectors = 6

// checkTrainBudget checks, before anything of that size is allocated,
// what training with l on train needs at least: weight-length vectors
// (two per worker more) and each instance's energy table (a node's L
// unary costs, an edge's L² pairwise costs), cached per instance. Label
// counts come from files (1 + the largest label): a label of 10⁵ in a
// graph asks for an L² of 10¹⁰ per edge and pairwise feature.
func checkTrainBudget(l Layout, train []Instance, workers int) error {
	if err := l.checkDim(); err != nil {
		return err
	}
	L := int64(l.Labels)
	need := membudget.Bytes(l.dim64(), int64(trainVectors+2*workers), 8)
	for i := range train {
		e := membudget.Add(membudget.Bytes(int64(train[i].Nodes()), L), membudget.Bytes(int64(len(train[i].Edges)), L, L))
		need = membudget.Add(need, membudget.Bytes(e, 8))
	}
	return membudget.Check(fmt.Sprintf("training with %d labels (du=%d, dp=%d, weight vector of %d) on %d instances", l.Labels, l.UnaryDim, l.PairwiseDim, l.dim64(), len(train)), need)
}

// checkPoolBudget checks the hard-constraint pool of a set before it is
// built: its sparse matrix B of nb rows (L(L−1)/2 for C2*, C4 and C̄4, L²
// for C3; at most four non-zeros each) and the bounds and anchors of its
// rows×nb margins, which grow as the edges times L².
func checkPoolBudget(set string, l Layout, rows, nb int64) error {
	const rowBytes = 4*16 + 24 // four terms and a slice header
	need := membudget.Add(membudget.Bytes(nb, rowBytes), membudget.Bytes(rows, nb, 8+8+4))
	return membudget.Check(fmt.Sprintf("the pool of constraint set %s with %d labels (%d edges x %d label pairs of hard constraints)", set, l.Labels, rows, nb), need)
}

// edgeRows is the number of pairwise rows (edges) of a set.
func edgeRows(set []Instance) int64 {
	n := int64(0)
	for i := range set {
		n += int64(set[i].pairwiseRows().n())
	}
	return n
}

// checkEnergyBudget checks the energy table of one instance (L costs a
// node, L² an edge) before inference allocates it.
func checkEnergyBudget(labels int, in *Instance, index int) error {
	L := int64(labels)
	e := membudget.Add(membudget.Bytes(int64(in.Nodes()), L), membudget.Bytes(int64(len(in.Edges)), L, L))
	if err := membudget.Check(fmt.Sprintf("the energy of a graph of %d nodes and %d edges with %d labels", in.Nodes(), len(in.Edges), labels), membudget.Bytes(e, 8)); err != nil {
		return fmt.Errorf("%s: %w", in.label(index), err)
	}
	return nil
}

// checkLabelsBudget checks a model file's label count: predicting on any
// graph with an edge takes an L×L table of costs.
func checkLabelsBudget(labels int) error {
	return membudget.Check(fmt.Sprintf("%d labels (a table of %d x %d pairwise costs for each edge)", labels, labels, labels), membudget.Bytes(int64(labels), int64(labels), 8))
}
