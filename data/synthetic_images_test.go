package data

import (
	"testing"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/slic"
)

// The generated folder trains with the pipeline alone, and the pairwise
// terms (C4) beat the unary-only model (C0) on held-out images, as its
// design promises.
func TestImageFolderLadder(t *testing.T) {
	dir := t.TempDir()
	if _, err := GenerateImageFolder(dir, ImageFolderOptions{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	images, masks, suffix, err := Pair(dir, dir, PairOptions{AutoSuffix: true})
	if err != nil || suffix != "_mask" || len(images) != 24 {
		t.Fatalf("pairing: %d images, suffix %q, %v", len(images), suffix, err)
	}
	p := Pipeline{Recipe: Recipe{Name: RecipeRGBHist}, SLIC: slic.Options{Compactness: 10, Sigma: 1}, RegionSize: 100, Masks: MaskFormat{Invert: true}}
	items, err := p.Build(images, masks, false, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	train, test := items[:16], items[16:]
	var trainIn []psub.Instance
	for _, it := range train {
		trainIn = append(trainIn, it.Instance)
	}
	acc := map[string]float64{}
	for _, set := range []string{"C0", "C4"} {
		cs, _ := psub.SetByName(set)
		m, _, err := psub.Train(trainIn, 2, psub.Settings{C: 1, Set: cs})
		if err != nil {
			t.Fatal(err)
		}
		var right, total int64
		for _, it := range test {
			r, err := m.Predict(&it.Instance)
			if err != nil {
				t.Fatal(err)
			}
			c, err := it.Score(r.Labels)
			if err != nil {
				t.Fatal(err)
			}
			right += c.Counts[0] + c.Counts[3]
			total += c.Total()
		}
		acc[set] = float64(right) / float64(total)
	}
	t.Logf("held-out pixel accuracy: C0 %.4f, C4 %.4f", acc["C0"], acc["C4"])
	if !(acc["C4"] > acc["C0"]+0.02) {
		t.Errorf("C4 %.4f does not beat C0 %.4f by 2 points on held-out images", acc["C4"], acc["C0"])
	}
}
