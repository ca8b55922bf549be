package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"
)

// twoColour is a w×h image, red left of x = w/2 and blue right of it.
func twoColour(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 0, 0, 255}
			if x >= w/2 {
				c = color.RGBA{0, 0, 255, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func writeImage(t *testing.T, file string, img image.Image) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch filepath.Ext(file) {
	case ".png":
		err = png.Encode(f, img)
	case ".jpg":
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 100})
	case ".bmp":
		err = bmp.Encode(f, img)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestSlicCommandWritesLabelsAndJSON(t *testing.T) {
	dir := t.TempDir()
	grey := image.NewGray(image.Rect(0, 0, 16, 8))
	for i := range grey.Pix {
		if i%16 >= 8 {
			grey.Pix[i] = 200
		}
	}
	cases := []struct {
		name string
		img  image.Image
	}{
		{"in.png", twoColour(16, 8)},
		{"in.jpg", twoColour(16, 8)},
		{"in.bmp", twoColour(16, 8)},
		{"grey.png", grey},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in, out := filepath.Join(dir, tc.name), filepath.Join(dir, tc.name+".labels.png")
			writeImage(t, in, tc.img)
			var stdout, stderr bytes.Buffer
			// Flags after the image name are accepted too.
			if code := run([]string{"slic", "-n", "2", "-m", "1", in, "-sigma", "0.5", "-o", out}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			var res slicResult
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("stdout is not JSON: %v: %q", err, stdout.String())
			}
			if res.File != in || res.Width != 16 || res.Height != 8 || res.Segments != 2 || res.Seconds < 0 {
				t.Errorf("result %+v", res)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			g, ok := img.(*image.Gray16)
			if !ok {
				t.Fatalf("labels decode as %T, want *image.Gray16", img)
			}
			for y := range 8 {
				for x := range 16 {
					want := uint16(0)
					if x >= 8 {
						want = 1
					}
					if got := g.Gray16At(x, y).Y; got != want {
						t.Fatalf("label at (%d, %d) = %d, want %d", x, y, got, want)
					}
				}
			}
		})
	}
}

func TestSlicCommandErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.png")
	writeImage(t, good, twoColour(8, 4))
	corrupt := filepath.Join(dir, "corrupt.png")
	if err := os.WriteFile(corrupt, []byte("\x89PNG\r\n\x1a\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.png")
	cases := []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"missing file", []string{"slic", filepath.Join(dir, "nope.png"), "-o", out}, "nope.png"},
		{"corrupt file", []string{"slic", corrupt, "-o", out}, "corrupt.png"},
		{"no output", []string{"slic", good}, "-o"},
		{"no image", []string{"slic", "-o", out}, "one IMAGE"},
		{"two images", []string{"slic", good, good, "-o", out}, "one IMAGE"},
		{"bad n", []string{"slic", "-n", "0", good, "-o", out}, "-n 0"},
		{"negative sigma", []string{"slic", "-sigma", "-1", good, "-o", out}, "-sigma -1"},
		{"unwritable output", []string{"slic", good, "-o", filepath.Join(dir, "no", "such", "dir.png")}, "dir.png"},
		{"unknown flag", []string{"slic", "-frob", good, "-o", out}, "frob"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code == 0 {
				t.Fatalf("exit 0, stdout %q", stdout.String())
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q does not mention %q", stderr.String(), tc.want)
			}
		})
	}
}
