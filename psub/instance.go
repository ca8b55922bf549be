package psub

import (
	"fmt"
	"math"
)

// Instance is one graph x of the training or test set, with its labelling y
// when known. Rows of Unary are φ_u per node; rows of Pairwise are φ_p per
// edge, aligned with Edges. Every node has the same unary dimension and
// every edge the same pairwise dimension.
type Instance struct {
	Name     string      `json:"name,omitempty"`
	Unary    [][]float64 `json:"unary"`
	Edges    [][2]int    `json:"edges"`
	Pairwise [][]float64 `json:"pairwise"`
	Labels   []int       `json:"labels,omitempty"`
}

// Nodes is the number of vertices of the graph.
func (in *Instance) Nodes() int { return len(in.Unary) }

// UnaryDim is the dimension of φ_u (0 for an empty graph).
func (in *Instance) UnaryDim() int {
	if len(in.Unary) == 0 {
		return 0
	}
	return len(in.Unary[0])
}

// PairwiseDim is the dimension of φ_p (0 for a graph without edges).
func (in *Instance) PairwiseDim() int {
	if len(in.Pairwise) == 0 {
		return 0
	}
	return len(in.Pairwise[0])
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
// edge and what was expected.
func (in *Instance) Validate(index, du, dp, labels int) error {
	who := in.label(index)
	if len(in.Unary) == 0 {
		return fmt.Errorf("%s: empty graph (no nodes)", who)
	}
	if len(in.Pairwise) != len(in.Edges) {
		return fmt.Errorf("%s: %d edges but %d pairwise feature rows", who, len(in.Edges), len(in.Pairwise))
	}
	if du < 0 {
		du = len(in.Unary[0])
	}
	for k, row := range in.Unary {
		if len(row) != du {
			return fmt.Errorf("%s: node %d: unary feature dimension %d, expected %d", who, k, len(row), du)
		}
		if j := firstNonFinite(row); j >= 0 {
			return fmt.Errorf("%s: node %d: unary feature %d is %v", who, k, j, row[j])
		}
	}
	if dp < 0 && len(in.Pairwise) > 0 {
		dp = len(in.Pairwise[0])
	}
	n := len(in.Unary)
	for e, ed := range in.Edges {
		if ed[0] < 0 || ed[0] >= n || ed[1] < 0 || ed[1] >= n {
			return fmt.Errorf("%s: edge %d (%d,%d): node index out of range [0,%d)", who, e, ed[0], ed[1], n)
		}
		if ed[0] == ed[1] {
			return fmt.Errorf("%s: edge %d: self-loop on node %d", who, e, ed[0])
		}
		if len(in.Pairwise[e]) != dp {
			return fmt.Errorf("%s: edge %d: pairwise feature dimension %d, expected %d", who, e, len(in.Pairwise[e]), dp)
		}
		if j := firstNonFinite(in.Pairwise[e]); j >= 0 {
			return fmt.Errorf("%s: edge %d: pairwise feature %d is %v", who, e, j, in.Pairwise[e][j])
		}
	}
	if in.Labels != nil {
		if len(in.Labels) != n {
			return fmt.Errorf("%s: %d labels for %d nodes", who, len(in.Labels), n)
		}
		for k, y := range in.Labels {
			if y < 0 || (labels >= 0 && y >= labels) {
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
		if dp < 0 && len(set[i].Pairwise) > 0 {
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

func firstNonFinite(row []float64) int {
	for j, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return j
		}
	}
	return -1
}
