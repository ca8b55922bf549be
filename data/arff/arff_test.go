package arff

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

const mulanHeader = `% a MULAN-style file: no label count in the header
@relation MultiLabelData

@attribute Att1 numeric
@ATTRIBUTE 'att two' REAL
@attribute "att\"3" integer
@attribute Class1 {0,1}
@attribute Class2 {0,1}

@data
`

const mekaHeader = `@relation 'toy: -C -2 -split 0.5'
@attribute Att1 numeric
@attribute 'att two' real
@attribute att3 numeric
@attribute Beach {0,1}
@attribute 'Fall Foliage' {'0','1'}
@data
`

func TestARFFHeaderStylesAndRows(t *testing.T) {
	wantX := [][]float64{{0.5, -1, 3}, {0, 2.5, 0}, {1e-3, 0, 7}}
	wantY := [][]int{{1, 0}, {0, 1}, {0, 0}}
	cases := []struct {
		name, text string
		spec       LabelSpec
		labels     []string
	}{
		{"MULAN dense, last 2", mulanHeader + "0.5,-1,3,1,0\n0,2.5,0,0,1\n% comment inside data\n\n1e-3,0,7,0,0\n", LabelSpec{Last: 2}, []string{"Class1", "Class2"}},
		{"MULAN dense, by names", mulanHeader + "0.5,-1,3,1,0\n0,2.5,0,0,1\n1e-3,0,7,0,0\n", LabelSpec{Names: []string{"Class1", "Class2"}}, []string{"Class1", "Class2"}},
		{"MULAN sparse", mulanHeader + "{0 0.5,1 -1,2 3,3 1}\n{1 2.5, 4 1}\n{0 1e-3,2 7}\n", LabelSpec{Last: 2}, []string{"Class1", "Class2"}},
		{"MEKA -C -2 from header", mekaHeader + "0.5,-1,3,'1',0\n0 , 2.5 , 0 , 0 , '1'\n1e-3,0,7,0,0\n", LabelSpec{}, []string{"Beach", "Fall Foliage"}},
		{"MEKA mixed dense and sparse", mekaHeader + "{0 0.5,1 -1,2 3,3 1}\n0,2.5,0,0,1\n{2 7, 0 0.001}\n", LabelSpec{}, []string{"Beach", "Fall Foliage"}},
		{"MEKA spec agrees", mekaHeader + "0.5,-1,3,1,0\n0,2.5,0,0,1\n1e-3,0,7,0,0\n", LabelSpec{Last: 2}, []string{"Beach", "Fall Foliage"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Parse(strings.NewReader(c.text), "toy.arff")
			if err != nil {
				t.Fatal(err)
			}
			s, err := a.MultiLabel(c.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s.X, wantX) || !reflect.DeepEqual(s.Y, wantY) {
				t.Fatalf("X %v Y %v; want %v %v", s.X, s.Y, wantX, wantY)
			}
			if !reflect.DeepEqual(s.LabelNames, c.labels) {
				t.Fatalf("labels %q, want %q", s.LabelNames, c.labels)
			}
			if len(s.FeatureNames) != 3 || s.FeatureNames[1] != "att two" {
				t.Fatalf("features %q", s.FeatureNames)
			}
		})
	}
}

func TestARFFQuotedNamesAndMissing(t *testing.T) {
	a, err := Parse(strings.NewReader(mulanHeader+"?,1,2,0,1\n"), "m.arff")
	if err != nil {
		t.Fatal(err)
	}
	if a.Attributes[2].Name != `att"3` || a.Relation != "MultiLabelData" {
		t.Fatalf("names: %q, relation %q", a.Attributes[2].Name, a.Relation)
	}
	if !math.IsNaN(a.Rows[0][0]) {
		t.Fatalf("'?' read as %v, want NaN", a.Rows[0][0])
	}
	if _, err := a.MultiLabel(LabelSpec{Last: 2}); err == nil || !strings.Contains(err.Error(), "m.arff:11: feature Att1 is missing") {
		t.Fatalf("missing feature: %v", err)
	}
}

func TestMEKALabels(t *testing.T) {
	cases := []struct {
		rel  string
		want LabelSpec
		ok   bool
	}{
		{"scene: -C -6", LabelSpec{Last: 6}, true},
		{"yeast: -C 14", LabelSpec{First: 14}, true},
		{"Corel5k-C: -C 374 -split 0.5", LabelSpec{First: 374}, true},
		{"MultiLabelData", LabelSpec{}, false},
		{"x -Cfoo", LabelSpec{}, false},
	}
	for _, c := range cases {
		got, ok := MEKALabels(c.rel)
		if ok != c.ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("MEKALabels(%q) = %+v, %v; want %+v, %v", c.rel, got, ok, c.want, c.ok)
		}
	}
}

func TestARFFErrors(t *testing.T) {
	cases := []struct {
		name, text string
		spec       LabelSpec
		want       string
	}{
		{"no data", "@relation r\n@attribute a numeric\n", LabelSpec{Last: 1}, "no @data"},
		{"short row", mulanHeader + "1,2,3,0\n", LabelSpec{Last: 2}, "toy.arff:11: row has 4 values, expected 5"},
		{"bad number", mulanHeader + "1,x,3,0,1\n", LabelSpec{Last: 2}, "toy.arff:11: attribute 1 (att two): \"x\" is not a finite number"},
		{"bad nominal", mulanHeader + "1,2,3,0,2\n", LabelSpec{Last: 2}, "\"2\" is not one of its values"},
		{"sparse index", mulanHeader + "{5 1}\n", LabelSpec{Last: 2}, "index \"5\" outside [0,5)"},
		{"sparse duplicate", mulanHeader + "{1 1, 1 2}\n", LabelSpec{Last: 2}, "index 1 given twice"},
		{"sparse weight", mulanHeader + "{1 1}, {3}\n", LabelSpec{Last: 2}, "instance weights"},
		{"string type", "@relation r\n@attribute s string\n@data\n", LabelSpec{Last: 1}, "type \"string\" is not supported"},
		{"unterminated quote", "@relation 'r\n", LabelSpec{}, "unterminated quote"},
		{"duplicate attribute", "@relation r\n@attribute a numeric\n@attribute a numeric\n", LabelSpec{}, "duplicate name"},
		{"MULAN needs a spec", mulanHeader + "1,2,3,0,1\n", LabelSpec{}, "gives no label count"},
		{"spec contradicts MEKA", mekaHeader + "1,2,3,0,1\n", LabelSpec{Last: 3}, "contradicts"},
		{"two ways", mulanHeader + "1,2,3,0,1\n", LabelSpec{Last: 2, First: 1}, "one way"},
		{"unknown name", mulanHeader + "1,2,3,0,1\n", LabelSpec{Names: []string{"Class9"}}, "\"Class9\" is not an attribute"},
		{"all labels", mulanHeader + "1,2,3,0,1\n", LabelSpec{Last: 5}, "leave no feature"},
		{"nominal feature", mulanHeader + "1,2,3,0,1\n", LabelSpec{Last: 1}, "feature attribute 3 (Class1) is nominal"},
		{"non-binary label", "@relation r\n@attribute a numeric\n@attribute c {yes,no}\n@data\n1,yes\n", LabelSpec{Last: 1}, "labels must be {0,1}"},
		{"numeric label not 0/1", "@relation r\n@attribute a numeric\n@attribute c numeric\n@data\n1,2\n", LabelSpec{Last: 1}, "label c is 2, expected 0 or 1"},
		{"no rows", mulanHeader, LabelSpec{Last: 2}, "no data rows"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Parse(strings.NewReader(c.text), "toy.arff")
			if err == nil {
				_, err = a.MultiLabel(c.spec)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(mulanHeader + "0.5,-1,3,1,0\n{1 2.5, 4 1}\n")
	f.Add(mekaHeader + "0.5,-1,3,'1',0\n")
	f.Add("@relation 'a b'\n@attribute \"x y\" {'p,q',r}\n@data\n'p,q'\n{0 r}\n?\n")
	f.Fuzz(func(t *testing.T, text string) {
		a, err := Parse(strings.NewReader(text), "f.arff")
		if err != nil {
			return
		}
		for i, row := range a.Rows {
			if len(row) != len(a.Attributes) {
				t.Fatalf("row %d has %d values for %d attributes", i, len(row), len(a.Attributes))
			}
			for j, v := range row {
				if at := a.Attributes[j]; at.Kind == Nominal && !math.IsNaN(v) && (v < 0 || int(v) >= len(at.Values) || v != math.Trunc(v)) {
					t.Fatalf("row %d attribute %d: nominal index %v outside its %d values", i, j, v, len(at.Values))
				}
				if math.IsInf(v, 0) {
					t.Fatalf("row %d attribute %d: infinite value", i, j)
				}
			}
		}
		for _, spec := range []LabelSpec{{}, {Last: 1}, {First: 1}} {
			s, err := a.MultiLabel(spec)
			if err != nil {
				continue
			}
			for i := range s.Y {
				for _, y := range s.Y[i] {
					if y != 0 && y != 1 {
						t.Fatalf("label %d", y)
					}
				}
			}
		}
	})
}

// TestLabelNames: LabelSpec.Names selects the columns of a MULAN file (the
// names of its XML labels file).
func TestLabelNames(t *testing.T) {
	names := []string{"Class1", "Class2", "Class2.a"}
	a, err := Parse(strings.NewReader(mulanHeader+"0.5,-1,3,1,0\n"), "toy.arff")
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.MultiLabel(LabelSpec{Names: names[:2]})
	if err != nil || !reflect.DeepEqual(s.Y, [][]int{{1, 0}}) {
		t.Fatalf("%v %v", s, err)
	}
}
