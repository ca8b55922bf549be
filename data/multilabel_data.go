package data

import (
	"fmt"
	"path/filepath"

	"github.com/probably-submodular/crf/data/arff"
)

// mlSpec describes a multi-label data set on disk and what its README
// promises, so a loader can refuse a truncated or different file.
type mlSpec struct {
	dir, train, test string
	labels           arff.LabelSpec
	nTrain, nTest    int
	features, labelN int
}

var (
	// yeastSpec: MULAN header (no label count): the last 14 attributes.
	yeastSpec = mlSpec{"yeast", "yeast-train.arff", "yeast-test.arff", arff.LabelSpec{Last: 14}, 1500, 917, 103, 14}
	// sceneSpec: MEKA header '-C -6': the count comes from the file.
	sceneSpec = mlSpec{"scene", "scene-train.arff", "scene-test.arff", arff.LabelSpec{}, 1211, 1196, 294, 6}
)

// LoadYeast reads the yeast data set (MULAN split: 1500 train / 917 test,
// 103 features, 14 labels) from the data folder path ("" to search; see
// Locator). Counts are checked against the data README.
func LoadYeast(path string) (train, test *MultiLabelSet, err error) {
	return loadMultiLabel(path, yeastSpec)
}

// LoadScene reads the scene data set (1211 train / 1196 test, 294 features,
// 6 labels, MEKA header) from the data folder path ("" to search).
func LoadScene(path string) (train, test *MultiLabelSet, err error) {
	return loadMultiLabel(path, sceneSpec)
}

func loadMultiLabel(path string, sp mlSpec) (train, test *MultiLabelSet, err error) {
	dir, err := Find(path, sp.dir)
	if err != nil {
		return nil, nil, err
	}
	if err := VerifyCached(dir, sp.dir, filepath.Join(dir, sp.train), filepath.Join(dir, sp.test)); err != nil {
		return nil, nil, err
	}
	load := func(file string, n int) (*MultiLabelSet, error) {
		full := filepath.Join(dir, file)
		s, err := ReadMultiLabelARFF(full, sp.labels)
		if err != nil {
			return nil, err
		}
		d, c := s.Dims()
		if s.Len() != n || d != sp.features || c != sp.labelN {
			return nil, fmt.Errorf("%s: %d examples × %d features × %d labels, expected %d × %d × %d (see the data README; "+
				"check the file with data.VerifyFiles or scripts/fetch-data)", full, s.Len(), d, c, n, sp.features, sp.labelN)
		}
		s.Name = sp.dir + "/" + file
		return s, nil
	}
	if train, err = load(sp.train, sp.nTrain); err != nil {
		return nil, nil, err
	}
	if test, err = load(sp.test, sp.nTest); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}

// MultiLabelSet is a multi-label classification data set: n examples with
// d numeric features and |C| binary labels.
type MultiLabelSet struct {
	Name         string
	FeatureNames []string
	LabelNames   []string
	X            [][]float64 // n × d
	Y            [][]int     // n × |C|, each 0 or 1
}

// Len is the number of examples.
func (s *MultiLabelSet) Len() int { return len(s.X) }

// Dims returns the feature dimension d and the number of labels |C|.
func (s *MultiLabelSet) Dims() (d, labels int) { return len(s.FeatureNames), len(s.LabelNames) }

// Subset returns the examples idx (sharing rows with s).
func (s *MultiLabelSet) Subset(idx []int) *MultiLabelSet {
	out := &MultiLabelSet{Name: s.Name, FeatureNames: s.FeatureNames, LabelNames: s.LabelNames,
		X: make([][]float64, len(idx)), Y: make([][]int, len(idx))}
	for i, j := range idx {
		out.X[i], out.Y[i] = s.X[j], s.Y[j]
	}
	return out
}

// ReadMultiLabelARFF reads a multi-label ARFF file with the given label
// columns (see arff.LabelSpec; the zero value reads MEKA's -C from the
// header), named by its @relation.
func ReadMultiLabelARFF(path string, spec arff.LabelSpec) (*MultiLabelSet, error) {
	f, err := arff.Read(path)
	if err != nil {
		return nil, err
	}
	m, err := f.MultiLabel(spec)
	if err != nil {
		return nil, err
	}
	return &MultiLabelSet{Name: f.Relation, FeatureNames: m.FeatureNames, LabelNames: m.LabelNames, X: m.X, Y: m.Y}, nil
}
