package data

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// A multi-page TIFF volume with a multi-page mask builds one 3-D instance
// whose regions span slices and whose labels are the mask's majority.
func TestPipelineVolume(t *testing.T) {
	dir := t.TempDir()
	const w, h, d = 24, 20, 6
	img, mask := imageio.NewVolume(w, h, d, 1), imageio.NewVolume(w, h, d, 1)
	for z := range d {
		for y := range h {
			for x := range w {
				i := img.Index(x, y, z)
				img.Pix[i] = float32(40 + (x*7+y*3+z*5)%20)
				if x >= 8 && x < 18 && y >= 5 && y < 15 && z >= 1 && z < 5 {
					img.Pix[i] += 150
					mask.Pix[i] = 255
				}
			}
		}
	}
	ip, mp := filepath.Join(dir, "vol.tif"), filepath.Join(dir, "vol_mask.tif")
	if err := imageio.WriteTIFF(ip, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := imageio.WriteTIFF(mp, mask, nil); err != nil {
		t.Fatal(err)
	}
	images, masks, _, err := Pair(dir, dir, PairOptions{AutoSuffix: true})
	if err != nil {
		t.Fatal(err)
	}
	p := Pipeline{Recipe: Recipe{Name: RecipeHistGLCMBias}, SLIC: slic.Options{Segments: 60, Compactness: 1}}
	items, err := p.Build(images, masks, false, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := items[0]
	if s.Regions.Depth != d || s.Instance.UnaryDim() != 105 || !slices.Contains(s.Instance.Labels, 1) || !slices.Contains(s.Instance.Labels, 0) {
		t.Fatalf("depth %d, du %d, labels %v", s.Regions.Depth, s.Instance.UnaryDim(), s.Instance.Labels)
	}
	if acc := s.Oracle.Accuracy(); acc < 0.9 {
		t.Errorf("oracle accuracy %.3f: the regions do not follow the cube", acc)
	}
	// A mask of other size is an error naming both files.
	if err := imageio.WriteTIFF(mp, imageio.NewVolume(w, h, d-1, 1), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Build(images, masks, false, BuildOptions{}); err == nil || !strings.Contains(err.Error(), "vol_mask.tif") {
		t.Errorf("mask of another depth: %v", err)
	}
}

// Index masks of K classes build instances with labels 0..K−1.
func TestPipelineMultiClass(t *testing.T) {
	dir := t.TempDir()
	vals := make([]uint8, 60)
	grey := make([]uint8, 60)
	for i := range vals {
		vals[i] = uint8(i / 20)
		grey[i] = uint8(30 + 90*(i/20))
	}
	writeGreyPNG(t, filepath.Join(dir, "a.png"), grey...)
	writeGreyPNG(t, filepath.Join(dir, "a_labels.png"), vals...)
	images, masks, suf, err := Pair(dir, dir, PairOptions{AutoSuffix: true})
	if err != nil || suf != "_labels" {
		t.Fatal(suf, err)
	}
	p := Pipeline{Recipe: Recipe{Name: RecipeHistGLCM}, SLIC: slic.Options{Segments: 6, Compactness: 1}, Masks: MaskFormat{Classes: 3}}
	items, err := p.Build(images, masks, false, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		if !slices.Contains(items[0].Instance.Labels, c) {
			t.Errorf("labels %v lack class %d", items[0].Instance.Labels, c)
		}
	}
	p.Masks.Classes = 2
	if _, err := p.Build(images, masks, false, BuildOptions{}); err == nil || !strings.Contains(err.Error(), "a_labels.png") {
		t.Errorf("a three-valued mask read as binary: %v", err)
	}
}
