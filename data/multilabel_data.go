package data

import (
	"fmt"
	"path/filepath"
)

// mlSpec describes a multi-label data set on disk and what its README
// promises, so a loader can refuse a truncated or different file.
type mlSpec struct {
	dir, train, test string
	labels           LabelSpec
	nTrain, nTest    int
	features, labelN int
}

var (
	// yeastSpec: MULAN header (no label count): the last 14 attributes.
	yeastSpec = mlSpec{"yeast", "yeast-train.arff", "yeast-test.arff", LabelSpec{Last: 14}, 1500, 917, 103, 14}
	// sceneSpec: MEKA header '-C -6': the count comes from the file.
	sceneSpec = mlSpec{"scene", "scene-train.arff", "scene-test.arff", LabelSpec{}, 1211, 1196, 294, 6}
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
