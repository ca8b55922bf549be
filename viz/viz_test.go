package viz

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"testing"
)

func TestLinesPNGDecodes(t *testing.T) {
	p, err := Lines("t", "x", "y", []Series{
		{Name: "a", X: []float64{1, 2, 3}, Y: []float64{1, 10, 100}, Lo: []float64{0.5, 5, 50}, Hi: []float64{2, 20, 200}},
		{Name: "b", X: []float64{1, 2, 3}, Y: []float64{3, 2, 1}},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	b, err := PNG(p, Width, Height)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if img.Bounds().Dx() < 100 {
		t.Fatalf("image too small: %v", img.Bounds())
	}
}

func TestLinesRejectsMismatchedSeries(t *testing.T) {
	if _, err := Lines("t", "x", "y", []Series{{Name: "bad", X: []float64{1, 2}, Y: []float64{1}}}, false); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("want error naming the series, got %v", err)
	}
}

func TestBarsWithErrors(t *testing.T) {
	p, err := Bars("acc", "%", []string{"C0", "C1", "C4"}, []BarSeries{
		{Name: "paper", Values: []float64{90, 91, 95}},
		{Name: "ours", Values: []float64{89, 92, 94}, Errors: []float64{1, 0.5, 0.7}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PNG(p, Width, Height); err != nil {
		t.Fatal(err)
	}
	if _, err := Bars("x", "y", []string{"a"}, []BarSeries{{Name: "short", Values: nil}}); err == nil {
		t.Fatal("want error for missing values")
	}
}

func TestEChartHTMLIsOffline(t *testing.T) {
	h := EChartHTML(EChartLines("t", "x", "y", []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{3, 4}}}, false))
	if strings.Contains(h, "http://") || strings.Contains(h, "https://") {
		t.Fatalf("chart references the network:\n%s", h)
	}
	if !strings.Contains(h, "echarts.init") || !strings.Contains(h, `"a"`) {
		t.Fatalf("chart HTML lacks init or series:\n%s", h)
	}
}

func TestProgressLine(t *testing.T) {
	p := NewProgress("train", 4)
	var buf bytes.Buffer
	p.out = &buf
	if l := p.Line(2, "fold 2"); !strings.Contains(l, "[##########..........] 2/4") || !strings.Contains(l, "fold 2") {
		t.Fatalf("line %q", l)
	}
	p.Update(4, "")
	p.Done("ok")
	if !strings.Contains(buf.String(), "done in") || !strings.HasSuffix(buf.String(), "\n") {
		t.Fatalf("output %q", buf.String())
	}
}

func TestComparisonFlagsLargeDifferences(t *testing.T) {
	nan := math.NaN()
	c := Comparison{Corner: "set", Rows: []string{"C0", "C4"}, Cols: []string{"acc"},
		Paper: [][]float64{{93.1}, {nan}}, Ours: [][]float64{{90.0}, {96.0}}}
	_, rows := c.Cells()
	if rows[0][1] != "90.0 (paper 93.1, Δ -3.1 !)" {
		t.Fatalf("cell %q", rows[0][1])
	}
	if rows[1][1] != "96.0" {
		t.Fatalf("cell without paper value %q", rows[1][1])
	}
	if md := c.Markdown(); !strings.Contains(md, "| C0 | 90.0 (paper 93.1") {
		t.Fatalf("markdown %q", md)
	}
	if h := TableHTML([]string{"<a>"}, nil); !strings.Contains(h, "&lt;a&gt;") {
		t.Fatalf("not escaped: %s", h)
	}
}

func TestOverlayBoundariesGrid(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 4, 2))
	labels := []int32{0, 0, 1, 1, 0, 0, 1, 1}
	ov, err := Overlay(img, labels, 1)
	if err != nil {
		t.Fatal(err)
	}
	if ov.NRGBAAt(0, 0) != (color.NRGBA{0, 0, 0, 255}) || ov.NRGBAAt(2, 0) != palette[0] {
		t.Fatalf("overlay colours %v %v", ov.NRGBAAt(0, 0), ov.NRGBAAt(2, 0))
	}
	bd, err := Boundaries(img, labels, color.White)
	if err != nil {
		t.Fatal(err)
	}
	if bd.NRGBAAt(1, 0) != (color.NRGBA{255, 255, 255, 255}) || bd.NRGBAAt(0, 0) != (color.NRGBA{0, 0, 0, 255}) {
		t.Fatal("boundary must be exactly the pixel left of the label change")
	}
	g, err := Grid([]image.Image{ov, bd}, []string{"a", "b"}, 2)
	if err != nil || g.Bounds().Dx() < 8 {
		t.Fatalf("grid %v %v", err, g)
	}
	if _, err := Overlay(img, labels[:3], 1); err == nil {
		t.Fatal("want size error")
	}
}

func TestGraphPlot(t *testing.T) {
	pos := [][2]float64{{0, 0}, {1, 0}, {0, 1}}
	p, err := GraphPlot("g", pos, [][2]int{{0, 1}, {1, 2}}, []int{0, 1, 1}, []bool{false, true, false})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PNG(p, Width, Height); err != nil {
		t.Fatal(err)
	}
	if _, err := GraphPlot("g", pos, [][2]int{{0, 3}}, []int{0, 1, 1}, nil); err == nil {
		t.Fatal("want error for an edge out of range")
	}
}

func TestHeaderEscapesTableCells(t *testing.T) {
	md := HeaderMarkdown(HeaderInfo{Title: "t", Reproduces: "r", Data: "pairwise |φ_k − φ_l|\nsecond line"})
	if !strings.Contains(md, `pairwise \|φ_k − φ_l\| second line |`) {
		t.Fatalf("data cell not escaped:\n%s", md)
	}
}

func TestScatterSkipsUndrawablePointsOnLogAxes(t *testing.T) {
	p, err := Scatter("s", "x", "y", []Series{{Name: "a", X: []float64{0, 1, 10}, Y: []float64{1, 2, 3}}}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PNG(p, Width, Height); err != nil {
		t.Fatal(err)
	}
	if _, err := Scatter("s", "x", "y", []Series{{Name: "bad", X: []float64{1}, Y: nil}}, false, false); err == nil {
		t.Fatal("want length error")
	}
}

// Shrink averages factor×factor blocks: checked against hand-computed means on
// a 5×3 image shrunk by 2 (partial blocks at the right and bottom edges).
func TestShrinkAveragesBlocks(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 5, 3))
	for y := 0; y < 3; y++ {
		for x := 0; x < 5; x++ {
			img.SetGray(x, y, color.Gray{uint8(10*x + 100*y)})
		}
	}
	out, err := Shrink(img, 3)
	if err != nil {
		t.Fatal(err)
	}
	if b := out.Bounds(); b.Dx() != 3 || b.Dy() != 2 {
		t.Fatalf("shrunk to %v, want 3×2", b)
	}
	want := [2][3]uint8{{55, 75, 90}, {205, 225, 240}} // block means, rounded
	for y := range 2 {
		for x := range 3 {
			if got := out.NRGBAAt(x, y).R; got != want[y][x] {
				t.Errorf("pixel (%d,%d) = %d, want %d", x, y, got, want[y][x])
			}
		}
	}
	same, err := Shrink(img, 5)
	if err != nil {
		t.Fatal(err)
	}
	if same.Bounds().Dx() != 5 || same.NRGBAAt(4, 2).R != 240 {
		t.Errorf("an image narrow enough changed: %v, pixel %v", same.Bounds(), same.NRGBAAt(4, 2))
	}
	if _, err := Shrink(img, 0); err == nil {
		t.Error("maximum width 0 accepted")
	}
}
