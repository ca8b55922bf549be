package main

import (
	"bufio"
	"fmt"
	"image/color"
	_ "image/jpeg" // registers JPEG for image.Decode
	"io"
	"os"
	"time"

	_ "golang.org/x/image/bmp" // registers BMP for image.Decode

	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// The ranges of slic's flags: scikit-image's useful values are far inside.
const (
	maxSegments    = 1 << 16 // a 16-bit label PNG
	maxCompactness = 1e6
	maxSigma       = 1000 // pixels; the kernel spans about 8σ
	maxSlicIter    = 10000
	maxRadius      = 1000 // grid steps
)

// slicResult is the JSON line printed by "psub slic".
type slicResult struct {
	File     string  `json:"file"`
	Output   string  `json:"output"`
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	Segments int     `json:"segments"`
	Seconds  float64 `json:"seconds"` // segmentation only, decoding excluded
}

// runSlic segments one PNG/JPEG/BMP image and writes the labels as a 16-bit
// greyscale PNG (pixel value = superpixel id).
func runSlic(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("slic", "psub slic [-n 500] [-m 10] [-sigma 0] [-iter 10] [-no-connectivity] [-radius 1] [-zero-init] IMAGE -o LABELS.png", stdout)
	n := fs.Int("n", 500, "approximate number of superpixels (n_segments)")
	m := fs.Float64("m", 10, "compactness m (higher: more regular superpixels)")
	sigma := fs.Float64("sigma", 0, "Gaussian pre-smoothing σ in pixels (0: none)")
	iters := fs.Int("iter", 10, "maximum k-means iterations")
	noConn := fs.Bool("no-connectivity", false, "do not enforce connected superpixels")
	radius := fs.Float64("radius", 1, "search window half-width in grid steps (scikit-image: 2)")
	zeroInit := fs.Bool("zero-init", false, "start centres at feature 0 as scikit-image does")
	out := fs.String("o", "", "output label map (16-bit PNG); required")
	// Accept flags before and after the image name.
	var files []string
	for {
		if err := fs.parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) != 1 {
		return fs.usageErr("expected one IMAGE, got %d", len(files))
	}
	if *out == "" {
		return fs.usageErr("missing -o LABELS.png")
	}
	// Each bound keeps a flag from overflowing the integer it becomes (a
	// kernel width, a window, a label) or from asking for unbounded work.
	if err := firstErr(
		fs.intIn("n", *n, 1, maxSegments, "superpixels; the labels are written as a 16-bit PNG"),
		fs.floatIn("m", *m, 0, maxCompactness, true, false, "the compactness"),
		fs.floatIn("sigma", *sigma, 0, maxSigma, false, false, "the Gaussian σ in pixels, 0 for none"),
		fs.intIn("iter", *iters, 1, maxSlicIter, "k-means iterations"),
		fs.floatIn("radius", *radius, 0, maxRadius, true, false, "the search window's half-width in grid steps"),
	); err != nil {
		return err
	}
	file := files[0]
	if err := fs.guard(paths(fileArg("-o", *out)), paths(fileArg("IMAGE", file))); err != nil {
		return err
	}
	if err := safefile.CheckWritable(*out); err != nil {
		return fmt.Errorf("-o %w", err)
	}
	v, err := decodeImage(file)
	if err != nil {
		return err
	}
	opt := slic.Options{Segments: *n, Compactness: *m, Sigma: *sigma, MaxIter: *iters,
		DisableConnectivity: *noConn, Lab: v.Channels == 3, SearchRadius: *radius, ZeroInit: *zeroInit}
	start := time.Now()
	labels, count, err := slic.Segment(v, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	secs := time.Since(start).Seconds()
	if err := imageio.WriteLabelPNG(*out, labels); err != nil {
		return err
	}
	return writeJSON(stdout, slicResult{File: file, Output: *out, Width: v.Width, Height: v.Height, Segments: count, Seconds: secs})
}

// decodeImage reads a PNG, JPEG or BMP: greyscale images give one channel,
// everything else three (RGB, 0–255).
func decodeImage(file string) (*imageio.Volume, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	// imageio.Decode checks the declared size against the file and the
	// memory budget before decoding.
	img, format, err := imageio.Decode(bufio.NewReader(f), size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err) // says "not a PNG, JPEG, BMP or TIFF image" for another format
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w == 0 || h == 0 {
		return nil, fmt.Errorf("%s: empty %s image", file, format)
	}
	switch img.ColorModel() {
	case color.GrayModel, color.Gray16Model:
		v := imageio.NewVolume(w, h, 1, 1)
		for y := range h {
			for x := range w {
				g := color.Gray16Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.Gray16)
				v.Pix[y*w+x] = float32(g.Y) / 257
			}
		}
		return v, nil
	}
	v := imageio.NewVolume(w, h, 1, 3)
	for y := range h {
		for x := range w {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			i := 3 * (y*w + x)
			v.Pix[i], v.Pix[i+1], v.Pix[i+2] = float32(r)/257, float32(g)/257, float32(bl)/257
		}
	}
	return v, nil
}
