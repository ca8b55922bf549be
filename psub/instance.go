package psub

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Instance is one graph x of the training or test set, with its labelling y
// when known. Rows of Unary are φ_u per node; rows of Pairwise are φ_p per
// edge, aligned with Edges. Every node has the same unary dimension and
// every edge the same pairwise dimension.
//
// Either matrix may instead be held sparsely, in UnarySparse or
// PairwiseSparse (the dense field is then nil): mostly-zero features such
// as the multi-label graphs' Kronecker rows take a fraction of the memory,
// and train, predict and evaluate to the same numbers (Compact picks the
// smaller form; data.ReadJSONL returns instances compacted).
type Instance struct {
	Name           string      `json:"name,omitempty"`
	Unary          [][]float64 `json:"unary"`
	Edges          [][2]int    `json:"edges"`
	Pairwise       [][]float64 `json:"pairwise"`
	Labels         []int       `json:"labels,omitempty"`
	UnarySparse    *SparseRows `json:"unary_sparse,omitempty"`
	PairwiseSparse *SparseRows `json:"pairwise_sparse,omitempty"`
}

// Nodes is the number of vertices of the graph.
func (in *Instance) Nodes() int { return in.unaryRows().n() }

// UnaryDim is the dimension of φ_u (0 for an empty graph).
func (in *Instance) UnaryDim() int {
	if in.unaryRows().n() == 0 {
		return 0
	}
	return in.unaryRows().rowLen(0)
}

// PairwiseDim is the dimension of φ_p (0 for a graph without edges).
func (in *Instance) PairwiseDim() int {
	if in.pairwiseRows().n() == 0 {
		return 0
	}
	return in.pairwiseRows().rowLen(0)
}

// label returns the instance's name for messages, or its position.
func (in *Instance) label(i int) string {
	if in.Name != "" {
		return fmt.Sprintf("instance %d (%s)", i, in.Name)
	}
	return fmt.Sprintf("instance %d", i)
}

// Validate checks one instance against the dimensions du, dp and label count
// L (pass a negative value to skip a check). index is the instance's position
// in its data set, used in the message. The error names the instance, node or
// edge and what was expected. Two edges joining the same pair of nodes (in
// either order) are an error: the format lists each neighbour pair once,
// and a repeated pair would count its pairwise term twice.
func (in *Instance) Validate(index, du, dp, labels int) error {
	who := in.label(index)
	if err := in.validateSparse(who); err != nil {
		return err
	}
	ur, pr := in.unaryRows(), in.pairwiseRows()
	if ur.n() == 0 {
		return fmt.Errorf("%s: empty graph (no nodes)", who)
	}
	if pr.n() != len(in.Edges) {
		return fmt.Errorf("%s: %d edges but %d pairwise feature rows", who, len(in.Edges), pr.n())
	}
	if du < 0 {
		du = ur.rowLen(0)
	}
	for k := 0; k < ur.n(); k++ {
		if ur.rowLen(k) != du {
			return fmt.Errorf("%s: node %d: unary feature dimension %d, expected %d", who, k, ur.rowLen(k), du)
		}
		if ur.s != nil {
			continue // checked by validateSparse
		}
		row := in.Unary[k]
		if j := firstNonFinite(row); j >= 0 {
			return fmt.Errorf("%s: node %d: unary feature %d is %v", who, k, j, row[j])
		}
	}
	if dp < 0 && pr.n() > 0 {
		dp = pr.rowLen(0)
	}
	n := ur.n()
	for e, ed := range in.Edges {
		if ed[0] < 0 || ed[0] >= n || ed[1] < 0 || ed[1] >= n {
			return fmt.Errorf("%s: edge %d (%d,%d): node index out of range [0,%d)", who, e, ed[0], ed[1], n)
		}
		if ed[0] == ed[1] {
			return fmt.Errorf("%s: edge %d: self-loop on node %d", who, e, ed[0])
		}
		if pr.rowLen(e) != dp {
			return fmt.Errorf("%s: edge %d: pairwise feature dimension %d, expected %d", who, e, pr.rowLen(e), dp)
		}
		if pr.s != nil {
			continue // checked by validateSparse
		}
		if j := firstNonFinite(in.Pairwise[e]); j >= 0 {
			return fmt.Errorf("%s: edge %d: pairwise feature %d is %v", who, e, j, in.Pairwise[e][j])
		}
	}
	if a, b, ok := duplicateEdge(in.Edges); ok {
		e, f := in.Edges[a], in.Edges[b]
		return fmt.Errorf("%s: edge %d (%d,%d) joins the same nodes as edge %d (%d,%d): each pair of nodes has at most one edge (merge their features into one row)",
			who, b, f[0], f[1], a, e[0], e[1])
	}
	if in.Labels != nil {
		if len(in.Labels) != n {
			return fmt.Errorf("%s: %d labels for %d nodes", who, len(in.Labels), n)
		}
		for k, y := range in.Labels {
			switch {
			case y < 0:
				return fmt.Errorf("%s: node %d: label %d is negative (labels are 0, 1, …)", who, k, y)
			case labels >= 0 && y >= labels:
				return fmt.Errorf("%s: node %d: label %d outside [0,%d)", who, k, y, labels)
			}
		}
	}
	return nil
}

// ValidateSet checks a whole data set: every instance valid with the same
// dimensions as the first. It returns du and dp.
func ValidateSet(set []Instance, labels int) (du, dp int, err error) {
	if len(set) == 0 {
		return 0, 0, fmt.Errorf("empty data set")
	}
	du, dp = set[0].UnaryDim(), -1
	for i := range set {
		if dp < 0 && set[i].pairwiseRows().n() > 0 {
			dp = set[i].PairwiseDim()
		}
		if err := set[i].Validate(i, du, dp, labels); err != nil {
			return 0, 0, err
		}
	}
	if dp < 0 {
		dp = 0
	}
	return du, dp, nil
}

// validateSparse checks the sparse matrices: well formed, and not given
// beside a dense form of the same matrix.
func (in *Instance) validateSparse(who string) error {
	for _, m := range []struct {
		name, dense, feature string
		s                    *SparseRows
		n                    int
	}{{"node", "Unary", "unary feature", in.UnarySparse, len(in.Unary)}, {"edge", "Pairwise", "pairwise feature", in.PairwiseSparse, len(in.Pairwise)}} {
		if m.s == nil {
			continue
		}
		if m.n > 0 {
			return fmt.Errorf("%s: both %s and %sSparse are set: give each matrix in one form", who, m.dense, m.dense)
		}
		if msg := m.s.check(m.name, m.feature); msg != "" {
			return fmt.Errorf("%s: %s", who, msg)
		}
	}
	return nil
}

func firstNonFinite(row []float64) int {
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return j
		}
	}
	return -1
}

// duplicateEdge finds two edges that join the same pair of nodes, in either
// order, and returns their indices (a < b). Edge lists in increasing order
// of (min, max) node, as the builders write them, are checked in one pass;
// others are sorted (a copy).
func duplicateEdge(edges [][2]int) (a, b int, ok bool) {
	key := func(e [2]int) uint64 {
		u, v := min(e[0], e[1]), max(e[0], e[1])
		return uint64(u)<<32 | uint64(uint32(v))
	}
	sorted := true
	for e := 1; e < len(edges); e++ {
		if key(edges[e-1]) >= key(edges[e]) {
			sorted = false
			break
		}
	}
	if sorted {
		return 0, 0, false
	}
	idx := make([]int, len(edges))
	for e := range idx {
		idx[e] = e
	}
	slices.SortFunc(idx, func(x, y int) int {
		if c := cmp.Compare(key(edges[x]), key(edges[y])); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
	for k := 1; k < len(idx); k++ {
		if key(edges[idx[k-1]]) == key(edges[idx[k]]) {
			return idx[k-1], idx[k], true
		}
	}
	return 0, 0, false
}
