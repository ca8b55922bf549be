package arff_test

import (
	"fmt"
	"strings"

	"github.com/probably-submodular/crf/data/arff"
)

// Read a multi-label ARFF file whose labels are the last attributes.
func ExampleParse() {
	const text = `@relation MultiLabelData
@attribute f1 numeric
@attribute f2 numeric
@attribute Class1 {0,1}
@attribute Class2 {0,1}
@data
0.5,-1,1,0
{0 2, 3 1}
`
	a, err := arff.Parse(strings.NewReader(text), "toy.arff")
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := a.MultiLabel(arff.LabelSpec{Last: 2}) // MULAN: count given by the user
	fmt.Println(s.X, s.Y, s.LabelNames, err)
	// Output: [[0.5 -1] [2 0]] [[1 0] [0 1]] [Class1 Class2] <nil>
}
