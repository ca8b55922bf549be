package data_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/probably-submodular/crf/data"
)

// Write graphs in the JSON Lines interchange format and read them back.
func ExampleReadJSONL() {
	s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: 1, Train: 2, Test: 1})
	var buf bytes.Buffer
	if err := data.WriteJSONL(&buf, s.Train); err != nil {
		fmt.Println(err)
		return
	}
	set, err := data.ReadJSONL(&buf, 2)
	fmt.Println(len(set), "graphs,", set[0].UnaryDim(), "unary and", set[0].PairwiseDim(), "pairwise features, err:", err)

	// A bad line is named with its line number and field.
	_, err = data.ReadJSONL(strings.NewReader(`{"unary":[[1]],"edges":[[0,1]],"pairwise":[[1]]}`+"\n"), 0)
	fmt.Println(err)
	// Output:
	// 2 graphs, 3 unary and 4 pairwise features, err: <nil>
	// line 1: instance 0: edge 0 (0,1): node index out of range [0,1)
}

// Turn a multi-label data set into label graphs.
func ExampleBuildMultiLabel() {
	train, test := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: 1})
	p, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{Components: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	g := p.Train[0]
	fmt.Printf("%d labels → %d nodes, %d edges; unary dim %d = 5·(12+1), pairwise dim %d = 10·2·4\n",
		len(p.LabelNames), g.Nodes(), len(g.Edges), g.UnaryDim(), g.PairwiseDim())
	// Output: 5 labels → 5 nodes, 10 edges; unary dim 65 = 5·(12+1), pairwise dim 80 = 10·2·4
}

// Split examples into seeded folds.
func ExampleKFold() {
	folds, _ := data.KFold(10, 5, 1)
	for _, f := range folds[:2] {
		fmt.Println(len(f.Train), "train,", len(f.Test), "test")
	}
	// Output:
	// 8 train, 2 test
	// 8 train, 2 test
}
