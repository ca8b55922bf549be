package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRasteriseMitoMatchesShipped rasterises every label file of the data
// folder and compares the mask with the shipped masks_derived file pixel by
// pixel (they were made by another program, Pillow's polygon fill: their
// bytes differ), and its PixelSum with the one shipped in checksums/.
func TestRasteriseMitoMatchesShipped(t *testing.T) {
	dir, err := Find("", MitoDir)
	if errors.Is(err, ErrNotFound) {
		t.Skip(err)
	}
	sums, err := DerivedPixelSums(MitoDir)
	if err != nil {
		t.Fatal(err)
	}
	masks, labels := MitoDerivedMasks()
	if len(sums) != len(masks) || len(masks) != 2*MitoSlices {
		t.Fatalf("%d pixel sums, %d masks, want %d", len(sums), len(masks), 2*MitoSlices)
	}
	if testing.Short() {
		masks, labels = masks[:20], labels[:20]
	}
	for i := range masks {
		polys, err := ReadMitoLabels(filepath.Join(dir, labels[i]))
		if err != nil {
			t.Fatal(err)
		}
		got := RasteriseMito(polys)
		f, err := os.Open(filepath.Join(dir, masks[i]))
		if err != nil {
			t.Fatal(err)
		}
		want, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if diff := diffMask(got, want); diff != "" {
			t.Errorf("%s: %s", masks[i], diff)
		}
		if s := PixelSum(got); s != sums[masks[i]] {
			t.Errorf("%s: pixel sum %s, shipped %s", masks[i], s, sums[masks[i]])
		}
	}
}

// diffMask counts the pixels where got and want differ.
func diffMask(got *image.Gray, want image.Image) string {
	if got.Bounds() != want.Bounds() {
		return fmt.Sprintf("bounds %v, shipped %v", got.Bounds(), want.Bounds())
	}
	n, first := 0, image.Point{}
	for y := 0; y < got.Bounds().Dy(); y++ {
		for x := 0; x < got.Bounds().Dx(); x++ {
			r, _, _, _ := want.At(x, y).RGBA()
			if uint32(got.GrayAt(x, y).Y) != r>>8 {
				if n == 0 {
					first = image.Pt(x, y)
				}
				n++
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("differs in %d pixels, first at %v", n, first)
}

// TestRasteriseMitoSmall checks the rule on shapes drawn by hand: a square
// with its border, a diagonal edge drawn 8-connected, a one-pixel sliver, a
// polygon over the corner. Pillow 9.4 (which made the shipped masks) draws
// the first, second and last alike; on the sliver it leaves out (3, 2), an
// outline pixel of this rule (Bresenham's tie), a case absent from the
// mitochondria labels, whose edges are straight runs and diagonals.
func TestRasteriseMitoSmall(t *testing.T) {
	draw := func(polys ...MitoPolygon) []string {
		m := RasteriseMito(polys)
		var rows []string
		for y := range 6 {
			var b strings.Builder
			for x := range 8 {
				b.WriteByte(".#"[m.GrayAt(x, y).Y/255])
			}
			rows = append(rows, b.String())
		}
		return rows
	}
	for _, c := range []struct {
		name  string
		polys []MitoPolygon
		want  string
	}{
		{"square", []MitoPolygon{{{1, 1}, {4, 1}, {4, 3}, {1, 3}}}, "........ .####... .####... .####... ........ ........"},
		{"triangle", []MitoPolygon{{{0, 0}, {5, 5}, {0, 5}}}, "#....... ##...... ###..... ####.... #####... ######.."},
		{"sliver", []MitoPolygon{{{2, 0}, {3, 4}, {2, 4}}}, "..#..... ..#..... ..##.... ..##.... ..##.... ........"},
		{"clipped", []MitoPolygon{{{-2, -2}, {2, -2}, {2, 2}, {-2, 2}}}, "###..... ###..... ###..... ........ ........ ........"},
	} {
		if got := strings.Join(draw(c.polys...), " "); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestReadMitoLabelsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ text, want string }{
		{"1 0.1 0.1 0.2 0.2 0.3 0.1\n", `:1: class "1"`},
		{"0 0.1 0.1 0.2 0.2\n", ":1: 4 coordinates"},
		{"\n0 0.1 0.1 0.2 x 0.3 0.1\n", ":2: vertex 2"},
		{"0 0.1 0.1 0.2 1.5 0.3 0.1\n", ":1: vertex 2 (0.2, 1.5)"},
	} {
		p := filepath.Join(dir, "l.txt")
		if err := os.WriteFile(p, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadMitoLabels(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	p := filepath.Join(dir, "ok.txt")
	os.WriteFile(p, []byte("0 0.5 0.5 0.25 0.75 0.0 0.0\n"), 0o644)
	polys, err := ReadMitoLabels(p)
	if err != nil || len(polys) != 1 || polys[0][1] != image.Pt(256, 576) {
		t.Fatalf("%v, %v", polys, err)
	}
}

// TestPixelSum: the definition, computed by hand.
func TestPixelSum(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 2, 1))
	m.Pix[1] = 255
	h := sha256.Sum256([]byte("gray 2 1\n\x00\xff"))
	if got, want := PixelSum(m), hex.EncodeToString(h[:]); got != want {
		t.Fatalf("PixelSum %s, want %s", got, want)
	}
}

// TestBuildMitoWithoutMasks: a folder with images and labels but no derived
// masks gets the command that makes them.
func TestBuildMitoWithoutMasks(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, MitoDir, "training", "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := BuildMito(MitoOptions{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "run scripts/fetch-data epfl_mito") || !strings.Contains(err.Error(), "masks_derived") {
		t.Fatalf("error %v, want the fetch-data command", err)
	}
}

// TestPixelSumGrayFastPath: a *image.Gray (fast path, here a sub-image) and
// the same pixels in another type have the same sum.
func TestPixelSumGrayFastPath(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 5, 4))
	for i := range g.Pix {
		g.Pix[i] = uint8(i * 13)
	}
	sub := g.SubImage(image.Rect(1, 1, 4, 3)).(*image.Gray)
	rgba := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for y := range 2 {
		for x := range 3 {
			rgba.Set(x, y, sub.At(x+1, y+1))
		}
	}
	if PixelSum(sub) != PixelSum(rgba) {
		t.Fatal("a grey sub-image and its RGBA copy differ in pixel sum")
	}
}
