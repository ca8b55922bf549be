package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub/imageio"
)

// runJSON runs psub with args and decodes its stdout into v; it fails the
// test unless the exit status is 0.
func runJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("psub %s: exit %d, stderr %s", strings.Join(args, " "), code, errb.String())
	}
	if err := json.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("psub %s: stdout is not one JSON object: %v: %q", strings.Join(args, " "), err, out.String())
	}
}

// The "Done when": a folder in another naming, format and polarity
// than the shared sets (JPEG img_001.jpg beside img_001_mask.png, object 0
// on 255) trains and predicts with the two commands alone, and C4's masks
// beat C0's on held-out images.
func TestSegmentOtherFolderC4BeatsC0(t *testing.T) {
	dir := t.TempDir()
	train, test := filepath.Join(dir, "train"), filepath.Join(dir, "test")
	if _, err := data.GenerateImageFolder(train, data.ImageFolderOptions{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := data.GenerateImageFolder(test, data.ImageFolderOptions{Seed: 2, Images: 8}); err != nil {
		t.Fatal(err)
	}
	type predicted struct {
		Predicted, Resumed int
		Accuracy           float64   `json:"pixel_accuracy"`
		IoU                []float64 `json:"iou"`
		VOC                float64   `json:"voc"`
	}
	res := map[string]predicted{}
	for _, set := range []string{"C0", "C4"} {
		model, out := filepath.Join(dir, set+".json"), filepath.Join(dir, "out-"+set)
		var tr struct {
			Images     int
			MaskSuffix string `json:"mask_suffix"`
			Selection  []any  `json:"c_selection"`
		}
		runJSON(t, &tr, "segment", "train", "-images", train, "-o", model, "-invert", "-set", set, "-C-grid", "0.1,1", "-holdout", "0.25")
		if tr.Images != 24 || tr.MaskSuffix != "_mask" || len(tr.Selection) != 2 {
			t.Fatalf("train %s: %+v", set, tr)
		}
		var p predicted
		runJSON(t, &p, "segment", "predict", "-model", model, "-images", test, "-o", out)
		if p.Predicted != 8 || p.Resumed != 0 || len(p.IoU) != 2 {
			t.Fatalf("predict %s: %+v", set, p)
		}
		res[set] = p
		// The masks are written in the training masks' polarity.
		m, err := imageio.ReadImage(filepath.Join(out, "img_001.png"))
		if err != nil {
			t.Fatal(err)
		}
		truth, err := imageio.ReadImage(filepath.Join(test, "img_001_mask.png"))
		if err != nil {
			t.Fatal(err)
		}
		agree := 0
		for i := range m.Pix {
			if m.Pix[i] != 0 && m.Pix[i] != 255 {
				t.Fatalf("predicted mask value %g, want 0 or 255", m.Pix[i])
			}
			if (m.Pix[i] >= 128) == (truth.Pix[i] >= 128) {
				agree++
			}
		}
		if a := float64(agree) / float64(len(m.Pix)); a < 0.8 {
			t.Errorf("%s: img_001's mask agrees with the inverted truth on %.2f of the pixels", set, a)
		}
		for _, f := range []string{"img_008_overlay.png", "img_008.json"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Error(err)
			}
		}
		// A second run keeps what the first wrote.
		runJSON(t, &p, "segment", "predict", "-model", model, "-images", test, "-o", out)
		if p.Resumed != 8 || p.Predicted != 0 {
			t.Errorf("rerun %s: %+v, want every image kept", set, p)
		}
	}
	t.Logf("held-out pixel accuracy C0 %.4f, C4 %.4f; VOC C0 %.4f, C4 %.4f", res["C0"].Accuracy, res["C4"].Accuracy, res["C0"].VOC, res["C4"].VOC)
	if !(res["C4"].Accuracy > res["C0"].Accuracy+0.01 && res["C4"].VOC > res["C0"].VOC+0.01) {
		t.Errorf("C4 (accuracy %.4f, VOC %.4f) does not beat C0 (%.4f, %.4f)", res["C4"].Accuracy, res["C4"].VOC, res["C0"].Accuracy, res["C0"].VOC)
	}
}

func writeGrey(t *testing.T, path string, w, h int, val func(x, y int) uint8) {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Pix[y*w+x] = val(x, y)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Bad input fails with exit status 1 and an error naming the file.
func TestSegmentBadInput(t *testing.T) {
	grey := func(x, y int) uint8 { return uint8(40 + 100*(x/10)) }
	half := func(x, y int) uint8 { return uint8(255 * (x / 10)) }
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string) // writes dir/images
		args  []string
		want  string
	}{
		{"size mismatch", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 24, 20, half)
		}, nil, "a_mask.png"},
		{"mask values not declared", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 20, 20, func(x, y int) uint8 { return uint8(7 * (x / 10)) })
		}, []string{"-mask-values", "0,255"}, "a_mask.png: pixel (10,0) has value 7"},
		{"three values in a binary mask", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 20, 20, func(x, y int) uint8 { return uint8(100 * (x / 7)) })
		}, nil, "a_mask.png: pixel"},
		{"image without mask", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 20, 20, half)
			writeGrey(t, filepath.Join(d, "b.png"), 20, 20, grey)
		}, []string{"-mask-suffix", "_mask"}, "b.png: no mask b_mask.*"},
		{"mask without image", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 20, 20, half)
			writeGrey(t, filepath.Join(d, "c_mask.png"), 20, 20, half)
		}, []string{"-mask-suffix", "_mask"}, "c_mask.png: no image c.*"},
		{"empty folder", func(t *testing.T, d string) {}, nil, "no images"},
		{"truncated file", func(t *testing.T, d string) {
			writeGrey(t, filepath.Join(d, "a.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "a_mask.png"), 20, 20, half)
			b, _ := os.ReadFile(filepath.Join(d, "a.png"))
			os.WriteFile(filepath.Join(d, "a.png"), b[:len(b)/2], 0o644)
		}, nil, "a.png"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			images := filepath.Join(dir, "images")
			os.Mkdir(images, 0o755)
			c.setup(t, images)
			model := filepath.Join(dir, "m.json")
			args := append([]string{"segment", "train", "-images", images, "-o", model, "-segments", "4"}, c.args...)
			var out, errb bytes.Buffer
			code := run(args, &out, &errb)
			if code != 1 || !strings.Contains(errb.String(), c.want) {
				t.Errorf("exit %d, stderr %q: want 1 and %q", code, errb.String(), c.want)
			}
			if _, err := os.Stat(model); err == nil {
				t.Errorf("a model was written")
			}
		})
	}
}

// predict refuses to overwrite files it did not write, and fails on an
// empty folder.
func TestSegmentPredictOwnsItsFiles(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "images")
	os.Mkdir(images, 0o755)
	writeGrey(t, filepath.Join(images, "a.png"), 20, 20, func(x, y int) uint8 { return uint8(40 + 100*(x/10)) })
	writeGrey(t, filepath.Join(images, "a_mask.png"), 20, 20, func(x, y int) uint8 { return uint8(255 * (x / 10)) })
	model := filepath.Join(dir, "m.json")
	var tr map[string]any
	runJSON(t, &tr, "segment", "train", "-images", images, "-o", model, "-segments", "4")
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "a.png"), []byte("someone's file"), 0o644)
	var o, e bytes.Buffer
	if code := run([]string{"segment", "predict", "-model", model, "-images", images, "-o", out}, &o, &e); code != 1 || !strings.Contains(e.String(), "refusing to overwrite") {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
	if b, _ := os.ReadFile(filepath.Join(out, "a.png")); string(b) != "someone's file" {
		t.Errorf("the foreign file was overwritten")
	}
	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	e.Reset()
	if code := run([]string{"segment", "predict", "-model", model, "-images", empty, "-o", out}, &o, &e); code != 1 || !strings.Contains(e.String(), "no images") {
		t.Errorf("empty folder: exit %d, stderr %q", code, e.String())
	}
}

// A volume (multi-page TIFF) with a 3-class index mask trains on the
// multi-label path and predicts a TIFF mask of the volume's size with the
// class indices.
func TestSegmentVolumeThreeClasses(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "vols")
	os.Mkdir(images, 0o755)
	const w, h, d = 30, 24, 5
	for n, shift := range []int{0, 3, 6} {
		img, mask := imageio.NewVolume(w, h, d, 1), imageio.NewVolume(w, h, d, 1)
		for z := range d {
			for y := range h {
				for x := range w {
					c := ((x + shift) / 10) % 3
					i := img.Index(x, y, z)
					img.Pix[i] = float32(30 + 90*c + (x*7+y*13+z)%11)
					mask.Pix[i] = float32(c)
				}
			}
		}
		stem := filepath.Join(images, "vol"+string(rune('a'+n)))
		if err := imageio.WriteTIFF(stem+".tif", img, nil); err != nil {
			t.Fatal(err)
		}
		if err := imageio.WriteTIFF(stem+"_labels.tif", mask, nil); err != nil {
			t.Fatal(err)
		}
	}
	model, out := filepath.Join(dir, "m.json"), filepath.Join(dir, "out")
	var tr struct {
		Recipe struct{ Name string }
	}
	runJSON(t, &tr, "segment", "train", "-images", images, "-o", model, "-classes", "3", "-region-size", "60", "-compactness", "1")
	if tr.Recipe.Name != data.RecipeHistGLCMBias {
		t.Errorf("recipe %q for volumes, want %s", tr.Recipe.Name, data.RecipeHistGLCMBias)
	}
	var p struct {
		Predicted int
		IoU       []float64 `json:"iou"`
		Accuracy  float64   `json:"pixel_accuracy"`
	}
	runJSON(t, &p, "segment", "predict", "-model", model, "-images", images, "-o", out)
	if p.Predicted != 3 || len(p.IoU) != 3 || p.Accuracy < 0.8 {
		t.Errorf("predict: %+v", p)
	}
	m, err := imageio.ReadImage(filepath.Join(out, "vola.tif"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Width != w || m.Height != h || m.Depth != d {
		t.Fatalf("predicted mask %dx%dx%d, want %dx%dx%d", m.Width, m.Height, m.Depth, w, h, d)
	}
	for _, v := range m.Pix {
		if v != 0 && v != 1 && v != 2 {
			t.Fatalf("predicted mask value %g, want a class index", v)
		}
	}
}

// tiffPages encodes uncompressed 8-bit grey pages of the given sizes (all
// samples 100) as one little-endian TIFF; EncodeTIFF cannot write pages of
// different sizes.
func tiffPages(sizes ...[2]int) []byte {
	var b bytes.Buffer
	u16 := func(v int) { b.WriteByte(byte(v)); b.WriteByte(byte(v >> 8)) }
	u32 := func(v int) { u16(v & 0xffff); u16(v >> 16) }
	b.WriteString("II*\x00")
	u32(8)
	for i, s := range sizes {
		w, h := s[0], s[1]
		data := b.Len() + 2 + 9*12 + 4 // the page's samples follow its IFD
		u16(9)
		for _, e := range [][3]int{{256, 3, w}, {257, 3, h}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1}, {273, 4, data}, {277, 3, 1}, {278, 3, h}, {279, 4, w * h}} {
			u16(e[0])
			u16(e[1])
			u32(1)
			if e[1] == 3 {
				u16(e[2])
				u16(0)
			} else {
				u32(e[2])
			}
		}
		next := 0
		if i+1 < len(sizes) {
			next = data + w*h
		}
		u32(next)
		b.Write(bytes.Repeat([]byte{100}, w*h))
	}
	return b.Bytes()
}

// A volume whose pages differ in size is an error naming the file.
func TestSegmentVolumePagesDiffer(t *testing.T) {
	dir := t.TempDir()
	good, bad := tiffPages([2]int{12, 10}, [2]int{12, 10}), tiffPages([2]int{12, 10}, [2]int{14, 10})
	if v, err := imageio.DecodeTIFF(bytes.NewReader(good), int64(len(good)), nil); err != nil || v.Depth != 2 {
		t.Fatalf("the encoder's two equal pages: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "v.tif"), bad, 0o644)
	os.WriteFile(filepath.Join(dir, "v_mask.tif"), good, 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"segment", "train", "-images", dir, "-o", filepath.Join(t.TempDir(), "m.json"), "-segments", "2"}, &out, &errb)
	if code != 1 || !strings.Contains(errb.String(), "v.tif") || !strings.Contains(errb.String(), "page 1") {
		t.Errorf("exit %d, stderr %q: want 1, the file and its page", code, errb.String())
	}
}

// Unlabelled pixels (-ignore) vote for no superpixel and count in no score;
// without the flag their value is a third one and the mask is refused.
func TestSegmentIgnore(t *testing.T) {
	dir := t.TempDir()
	images := filepath.Join(dir, "images")
	os.Mkdir(images, 0o755)
	writeGrey(t, filepath.Join(images, "a.png"), 20, 20, func(x, y int) uint8 { return uint8(40 + 100*(x/10)) })
	writeGrey(t, filepath.Join(images, "a_mask.png"), 20, 20, func(x, y int) uint8 {
		if y < 5 {
			return 128 // not annotated
		}
		return uint8(255 * (x / 10))
	})
	model := filepath.Join(dir, "m.json")
	var o, e bytes.Buffer
	if code := run([]string{"segment", "train", "-images", images, "-o", model, "-segments", "4"}, &o, &e); code != 1 || !strings.Contains(e.String(), "a_mask.png: pixel") {
		t.Errorf("without -ignore: exit %d, stderr %q", code, e.String())
	}
	var tr map[string]any
	runJSON(t, &tr, "segment", "train", "-images", images, "-o", model, "-segments", "4", "-ignore", "128", "-checkpoint", filepath.Join(dir, "ckpt"))
	var p map[string]any
	runJSON(t, &p, "segment", "predict", "-model", model, "-images", images, "-o", filepath.Join(dir, "out"))
	s, err := readSummary(filepath.Join(dir, "out", "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, c := range s.Counts {
		n += c
	}
	if n != 20*15 {
		t.Errorf("the score counts %d pixels, want the %d annotated ones", n, 20*15)
	}
}
