package viz

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Palette colours labels 1, 2, … in overlays (label 0 is left unpainted).
var palette = []color.NRGBA{
	{230, 25, 75, 255}, {60, 180, 75, 255}, {0, 130, 200, 255}, {245, 130, 48, 255},
	{145, 30, 180, 255}, {70, 240, 240, 255}, {240, 50, 230, 255}, {210, 245, 60, 255},
}

// Overlay paints labels (one per pixel, row-major, the image's size) over a
// copy of img with the given opacity; label 0 stays unpainted.
func Overlay(img image.Image, labels []int32, alpha float64) (*image.NRGBA, error) {
	b := img.Bounds()
	if len(labels) != b.Dx()*b.Dy() {
		return nil, fmt.Errorf("overlay: %d labels for a %dx%d image", len(labels), b.Dx(), b.Dy())
	}
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			l := labels[y*b.Dx()+x]
			if l <= 0 {
				continue
			}
			c := palette[int(l-1)%len(palette)]
			o := out.NRGBAAt(x, y)
			mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-alpha) + float64(b)*alpha + 0.5) }
			out.SetNRGBA(x, y, color.NRGBA{mix(o.R, c.R), mix(o.G, c.G), mix(o.B, c.B), 255})
		}
	}
	return out, nil
}

// Boundaries draws, over a copy of img, the pixels whose right or lower
// neighbour has a different region id (superpixel or segmentation contours).
func Boundaries(img image.Image, regions []int32, c color.Color) (*image.NRGBA, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if len(regions) != w*h {
		return nil, fmt.Errorf("boundaries: %d region ids for a %dx%d image", len(regions), w, h)
	}
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r := regions[y*w+x]
			if (x+1 < w && regions[y*w+x+1] != r) || (y+1 < h && regions[(y+1)*w+x] != r) {
				out.Set(x, y, c)
			}
		}
	}
	return out, nil
}

// Grid lays images out in rows of cols, each with its title above, as in
// the paper's segmentation figures (ground truth / C0 / … / QPBO).
func Grid(images []image.Image, titles []string, cols int) (*image.NRGBA, error) {
	if len(images) == 0 || cols <= 0 {
		return nil, fmt.Errorf("grid: %d images, %d columns", len(images), cols)
	}
	if len(titles) != len(images) {
		return nil, fmt.Errorf("grid: %d titles for %d images", len(titles), len(images))
	}
	cw, ch := 0, 0
	for _, im := range images {
		cw, ch = max(cw, im.Bounds().Dx()), max(ch, im.Bounds().Dy())
	}
	const pad, title = 4, 16
	rows := (len(images) + cols - 1) / cols
	out := image.NewNRGBA(image.Rect(0, 0, cols*(cw+pad)+pad, rows*(ch+title+pad)+pad))
	draw.Draw(out, out.Bounds(), image.White, image.Point{}, draw.Src)
	face := basicfont.Face7x13
	for i, im := range images {
		x0, y0 := pad+(i%cols)*(cw+pad), pad+(i/cols)*(ch+title+pad)
		d := font.Drawer{Dst: out, Src: image.Black, Face: face, Dot: fixed.P(x0, y0+12)}
		d.DrawString(titles[i])
		r := image.Rect(x0, y0+title, x0+im.Bounds().Dx(), y0+title+im.Bounds().Dy())
		draw.Draw(out, r, im, im.Bounds().Min, draw.Src)
	}
	return out, nil
}

// Shrink returns img reduced by the smallest integer factor that makes it at
// most maxWidth pixels wide, each output pixel the mean of its factor×factor
// block (a partial block at the right or bottom edge averages what it covers;
// colours are averaged without weighting by alpha, which is exact for the
// opaque images and overlays drawn here).
// An image already narrow enough is returned as a copy at full size. Whole
// volume slices (1024 pixels wide) laid out five to a row make PNGs of several
// megabytes that no screen shows at full size; notebooks shrink them first.
func Shrink(img image.Image, maxWidth int) (*image.NRGBA, error) {
	if maxWidth <= 0 {
		return nil, fmt.Errorf("shrink: maximum width %d, want a positive number of pixels", maxWidth)
	}
	b := img.Bounds()
	f := max((b.Dx()+maxWidth-1)/maxWidth, 1)
	w, h := (b.Dx()+f-1)/f, (b.Dy()+f-1)/f
	out := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var r, g, bl, a, n uint32
			for dy := 0; dy < f && y*f+dy < b.Dy(); dy++ {
				for dx := 0; dx < f && x*f+dx < b.Dx(); dx++ {
					c := color.NRGBAModel.Convert(img.At(b.Min.X+x*f+dx, b.Min.Y+y*f+dy)).(color.NRGBA)
					r, g, bl, a, n = r+uint32(c.R), g+uint32(c.G), bl+uint32(c.B), a+uint32(c.A), n+1
				}
			}
			out.SetNRGBA(x, y, color.NRGBA{uint8((r + n/2) / n), uint8((g + n/2) / n), uint8((bl + n/2) / n), uint8((a + n/2) / n)})
		}
	}
	return out, nil
}

// EncodePNG encodes an image as PNG bytes.
func EncodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ShowImage displays an image inline as PNG.
func ShowImage(img image.Image) error {
	b, err := EncodePNG(img)
	if err != nil {
		return err
	}
	ShowPNG(b)
	return nil
}
