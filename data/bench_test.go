package data

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/probably-submodular/crf/data/arff"
)

func BenchmarkReadJSONL(b *testing.B) {
	s := SyntheticSegmentation(SegmentationOptions{Seed: 1})
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, s.Train); err != nil {
		b.Fatal(err)
	}
	raw := buf.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadJSONL(bytes.NewReader(raw), 2); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteJSONL(b *testing.B) {
	s := SyntheticSegmentation(SegmentationOptions{Seed: 1})
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteJSONL(&buf, s.Train); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

func loadYeastOrSkip(b *testing.B) (*MultiLabelSet, *MultiLabelSet) {
	train, test, err := LoadYeast("")
	if errors.Is(err, ErrNotFound) {
		b.Skipf("data not available: %v", err)
	}
	if err != nil {
		b.Fatal(err)
	}
	return train, test
}

// Parsing yeast-train.arff (1.5 MB, 1500 dense rows).
func BenchmarkParseARFFYeast(b *testing.B) {
	dir, err := Find("", "yeast")
	if errors.Is(err, ErrNotFound) {
		b.Skipf("data not available: %v", err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "yeast-train.arff"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := arff.Parse(bytes.NewReader(raw), "yeast-train.arff"); err != nil {
			b.Fatal(err)
		}
	}
}

// The whole yeast multi-label build: PCA on 1500 × 103 and 2417 graphs of
// 14 nodes, 91 edges, 1456 unary and 3640 pairwise dimensions.
func BenchmarkBuildMultiLabelYeast(b *testing.B) {
	train, test := loadYeastOrSkip(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := BuildMultiLabel(train, test, MultiLabelOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSyntheticSegmentation(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		SyntheticSegmentation(SegmentationOptions{Seed: 1})
	}
}
