package data

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
)

// The EPFL ground truth is stored as polygons (the source's YOLO
// segmentation text); the masks the loader reads (masks_derived/) are not in
// the source repository and are made here, by the rule of the data README:
// every vertex scaled (x by MitoWidth, y by MitoHeight) and rounded, every
// polygon filled together with its outline, 255 inside and 0 outside.

// MitoPolygon is one mitochondrion profile: its vertices in pixels (x is the
// column, y the row), in the label file's order.
type MitoPolygon []image.Point

// ReadMitoLabels reads one label file: one line "0 x1 y1 x2 y2 ..." per
// polygon, coordinates normalised by the slice's width and height. Errors
// name the file and line.
func ReadMitoLabels(path string) ([]MitoPolygon, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var polys []MitoPolygon
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if fields[0] != "0" {
			return nil, fmt.Errorf("%s:%d: class %q, expected 0 (mitochondrion)", path, line, fields[0])
		}
		coords := fields[1:]
		if len(coords)%2 != 0 || len(coords) < 6 {
			return nil, fmt.Errorf("%s:%d: %d coordinates, expected x y pairs of at least 3 vertices", path, line, len(coords))
		}
		p := make(MitoPolygon, 0, len(coords)/2)
		for i := 0; i < len(coords); i += 2 {
			x, errx := strconv.ParseFloat(coords[i], 64)
			y, erry := strconv.ParseFloat(coords[i+1], 64)
			if errx != nil || erry != nil || x < 0 || x > 1 || y < 0 || y > 1 {
				return nil, fmt.Errorf("%s:%d: vertex %d (%s, %s): expected two numbers in [0, 1]", path, line, i/2+1, coords[i], coords[i+1])
			}
			p = append(p, image.Pt(int(math.Round(x*MitoWidth)), int(math.Round(y*MitoHeight))))
		}
		polys = append(polys, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return polys, nil
}

// RasteriseMito draws the polygons on a MitoWidth×MitoHeight grey mask: each
// polygon's interior (the pixel centres inside it, even-odd rule) and its
// outline (a Bresenham line along every edge) are 255, the rest 0.
func RasteriseMito(polys []MitoPolygon) *image.Gray {
	m := image.NewGray(image.Rect(0, 0, MitoWidth, MitoHeight))
	for _, p := range polys {
		fillPolygon(m, p)
		for i := range p {
			line(m, p[i], p[(i+1)%len(p)])
		}
	}
	return m
}

// fillPolygon sets the pixels whose centre lies inside p: on each row, the
// spans between pairs of edge crossings (an edge counts on the rows
// [min y, max y), so a vertex is crossed once).
func fillPolygon(m *image.Gray, p MitoPolygon) {
	ymin, ymax := p[0].Y, p[0].Y
	for _, v := range p {
		ymin, ymax = min(ymin, v.Y), max(ymax, v.Y)
	}
	b := m.Bounds()
	var xs []float64
	for y := max(ymin, b.Min.Y); y <= min(ymax, b.Max.Y-1); y++ {
		xs = xs[:0]
		for i := range p {
			a, c := p[i], p[(i+1)%len(p)]
			if a.Y == c.Y {
				continue
			}
			if a.Y > c.Y {
				a, c = c, a
			}
			if y < a.Y || y >= c.Y {
				continue
			}
			xs = append(xs, float64(a.X)+float64(y-a.Y)*float64(c.X-a.X)/float64(c.Y-a.Y))
		}
		slices.Sort(xs)
		for i := 0; i+1 < len(xs); i += 2 {
			for x := max(int(math.Ceil(xs[i])), b.Min.X); x <= min(int(math.Floor(xs[i+1])), b.Max.X-1); x++ {
				m.Pix[m.PixOffset(x, y)] = 255
			}
		}
	}
}

// line draws the segment from a to c, both ends included, with Bresenham's
// algorithm; pixels outside the mask are skipped.
func line(m *image.Gray, a, c image.Point) {
	dx, dy := abs(c.X-a.X), -abs(c.Y-a.Y)
	sx, sy := sign(c.X-a.X), sign(c.Y-a.Y)
	e := dx + dy
	for {
		if (image.Point{a.X, a.Y}).In(m.Bounds()) {
			m.Pix[m.PixOffset(a.X, a.Y)] = 255
		}
		if a == c {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			a.X += sx
		}
		if e2 <= dx {
			e += dx
			a.Y += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func sign(v int) int {
	switch {
	case v < 0:
		return -1
	case v > 0:
		return 1
	}
	return 0
}

// PixelSum is the sha256 (hex) of an image's pixel content as 8-bit grey:
// the line "gray W H\n", then the rows top to bottom. Two PNG encoders give
// different bytes for the same mask; its pixel sum is the same.
func PixelSum(img image.Image) string {
	b := img.Bounds()
	h := sha256.New()
	fmt.Fprintf(h, "gray %d %d\n", b.Dx(), b.Dy())
	if g, ok := img.(*image.Gray); ok {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			h.Write(g.Pix[g.PixOffset(b.Min.X, y):][:b.Dx()])
		}
		return hex.EncodeToString(h.Sum(nil))
	}
	row := make([]byte, b.Dx())
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			row[x-b.Min.X] = color.GrayModel.Convert(img.At(x, y)).(color.Gray).Y
		}
		h.Write(row)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// PNGPixelSum decodes a PNG file and returns its PixelSum.
func PNGPixelSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return PixelSum(img), nil
}

// MitoDerivedMasks lists the derived masks of the epfl_mito data set, as
// paths relative to its folder ("training/masks_derived/train_001.png"),
// with the label file each is made from.
func MitoDerivedMasks() (masks, labels []string) {
	for _, v := range []struct{ vol, prefix string }{{"training", "train"}, {"testing", "test"}} {
		for i := 1; i <= MitoSlices; i++ {
			stem := fmt.Sprintf("%s_%03d", v.prefix, i)
			masks = append(masks, v.vol+"/masks_derived/"+stem+".png")
			labels = append(labels, v.vol+"/labels/"+stem+".txt")
		}
	}
	return masks, labels
}

// DeriveMitoMask rasterises the label file label (a path relative to dir,
// the epfl_mito folder) into mask (relative to dir), written atomically, and
// returns the mask's PixelSum.
func DeriveMitoMask(dir, label, mask string) (string, error) {
	polys, err := ReadMitoLabels(filepath.Join(dir, filepath.FromSlash(label)))
	if err != nil {
		return "", err
	}
	m := RasteriseMito(polys)
	out := filepath.Join(dir, filepath.FromSlash(mask))
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	if err := safefile.Write(out, func(w io.Writer) error { return png.Encode(w, m) }); err != nil {
		return "", err
	}
	return PixelSum(m), nil
}
