package data

import (
	"fmt"

	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/psub"
)

// bomInside is the message for a byte-order mark that starts a line other
// than the first.
const bomInside = "a UTF-8 byte-order mark (bytes EF BB BF) starts this line; it may only start the file (were files joined, e.g. with cat?)"

// missingField is the message for a required field that is missing or
// null: what the field holds, and for edges and pairwise how to say none.
func missingField(name string) string {
	if name == "unary" {
		return "missing or null: one row of unary features per node is required (a graph has at least one node)"
	}
	return "missing or null (use [] for none)"
}

// checkLabelBudget checks, when L is not given and so is 1 + the largest
// label, that the L a line's labels imply leaves the weight vector (L·du +
// L²·dp float64s, training's least) within the memory budget: a label of
// 10⁵ in a file of a few bytes asks for 80 GB. The message names the
// instance and node of the largest label.
func checkLabelBudget(in *psub.Instance, index, du, dp int) error {
	node, y := -1, -1
	for k, l := range in.Labels {
		if l > y {
			node, y = k, l
		}
	}
	if node < 0 {
		return nil
	}
	L := int64(y) + 1
	need := membudget.Bytes(membudget.Add(membudget.Bytes(L, int64(du)), membudget.Bytes(L, L, int64(max(dp, 0)))), 8)
	if err := membudget.Check(fmt.Sprintf("a weight vector for %d labels (du=%d, dp=%d)", L, du, max(dp, 0)), need); err != nil {
		who := fmt.Sprintf("instance %d", index)
		if in.Name != "" {
			who += " (" + in.Name + ")"
		}
		return fmt.Errorf("%s: node %d: label %d makes L = %d labels (L is 1 + the largest label): %w", who, node, y, L, err)
	}
	return nil
}
