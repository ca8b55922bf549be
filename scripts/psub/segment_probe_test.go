package main

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// segmentModel trains a small segmenter on a.png and returns the model's
// path and the images folder.
func segmentModel(t *testing.T, dir string) (model, images string) {
	t.Helper()
	images = filepath.Join(dir, "images")
	os.Mkdir(images, 0o755)
	writeGrey(t, filepath.Join(images, "a.png"), 20, 20, func(x, y int) uint8 { return uint8(40 + 100*(x/10)) })
	writeGrey(t, filepath.Join(images, "a_mask.png"), 20, 20, func(x, y int) uint8 { return uint8(255 * (x / 10)) })
	model = filepath.Join(dir, "m.json")
	var tr map[string]any
	runJSON(t, &tr, "segment", "train", "-images", images, "-o", model, "-segments", "4")
	return model, images
}

// A run stopped after the mask was written (killed, or failed writing the
// overlay) leaves files that its pending summary claims: the next run does
// the image again instead of refusing its own files.
func TestSegmentPredictResumesAfterStop(t *testing.T) {
	dir := t.TempDir()
	model, images := segmentModel(t, dir)
	out := filepath.Join(dir, "out")
	// A link from the overlay into a missing folder makes the first run
	// stop after the mask, as a kill there would.
	os.Mkdir(out, 0o755)
	if err := os.Symlink(filepath.Join(dir, "missing", "o.png"), filepath.Join(out, "a_overlay.png")); err != nil {
		t.Fatal(err)
	}
	args := []string{"segment", "predict", "-model", model, "-images", images, "-mask-suffix", "_mask", "-o", out}
	var o, e bytes.Buffer
	if code := run(args, &o, &e); code != 1 {
		t.Fatalf("first run: exit %d, want 1 (the overlay cannot be written); stderr %s", code, e.String())
	}
	if _, err := os.Stat(filepath.Join(out, "a.png")); err != nil {
		t.Fatalf("the first run did not get as far as the mask: %v", err)
	}
	os.Remove(filepath.Join(out, "a_overlay.png"))
	var res map[string]any
	runJSON(t, &res, args...)
	if res["predicted"] != 1.0 {
		t.Errorf("rerun: %v, want the image predicted again", res)
	}
	if b, err := os.ReadFile(filepath.Join(out, "a.json")); err != nil || strings.Contains(string(b), "pending") {
		t.Errorf("final summary: %q, %v", b, err)
	}
}

// Two images whose outputs share a name are refused before any work: the
// second's mask would silently replace the first's.
func TestSegmentPredictOutputCollisions(t *testing.T) {
	dir := t.TempDir()
	model, _ := segmentModel(t, dir)
	grey := func(x, y int) uint8 { return uint8(40 + 100*(x/10)) }
	for _, c := range []struct {
		name  string
		setup func(d string)
		want  string
	}{
		{"same stem, two formats", func(d string) {
			writeGrey(t, filepath.Join(d, "b.png"), 20, 20, grey)
			img := image.NewGray(image.Rect(0, 0, 20, 20))
			f, _ := os.Create(filepath.Join(d, "b.jpg"))
			jpeg.Encode(f, img, nil)
			f.Close()
		}, "b.png"},
		{"a mask named like another's overlay", func(d string) {
			writeGrey(t, filepath.Join(d, "c.png"), 20, 20, grey)
			writeGrey(t, filepath.Join(d, "c_overlay.png"), 20, 20, grey)
		}, "c_overlay.png"},
	} {
		t.Run(c.name, func(t *testing.T) {
			images := filepath.Join(t.TempDir(), "images")
			os.Mkdir(images, 0o755)
			c.setup(images)
			out := filepath.Join(t.TempDir(), "out")
			var o, e bytes.Buffer
			code := run([]string{"segment", "predict", "-model", model, "-images", images, "-o", out}, &o, &e)
			if code != 1 || !strings.Contains(e.String(), "would both write") || !strings.Contains(e.String(), c.want) {
				t.Errorf("exit %d, stderr %q: want 1 and the collision named", code, e.String())
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("%d files written before the refusal", len(entries))
			}
		})
	}
}

// A segmenter file saved by an editor with a UTF-8 byte-order mark is read.
func TestSegmentModelBOM(t *testing.T) {
	dir := t.TempDir()
	model, images := segmentModel(t, dir)
	b, _ := os.ReadFile(model)
	bom := filepath.Join(dir, "bom.json")
	os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), b...), 0o644)
	var res map[string]any
	runJSON(t, &res, "segment", "predict", "-model", bom, "-images", images, "-mask-suffix", "_mask", "-o", filepath.Join(dir, "out"))
}

// A segmenter file is sealed as a whole: an edit of the pipeline (SLIC's
// compactness, which changes every prediction) is refused with how to
// re-seal, "psub model -reseal" accepts it, and re-indenting the file
// (the same values) is no edit.
func TestSegmenterSealed(t *testing.T) {
	dir := t.TempDir()
	model, images := segmentModel(t, dir)
	b, _ := os.ReadFile(model)
	if !strings.Contains(string(b), `"Compactness": 10,`) {
		t.Fatalf("no compactness 10 in %s", b)
	}
	edited := filepath.Join(dir, "edited.json")
	os.WriteFile(edited, []byte(strings.Replace(string(b), `"Compactness": 10,`, `"Compactness": 50,`, 1)), 0o644)
	predict := []string{"segment", "predict", "-model", edited, "-images", images, "-mask-suffix", "_mask", "-o", filepath.Join(dir, "out")}
	var o, e bytes.Buffer
	if code := run(predict, &o, &e); code != 1 || !strings.Contains(e.String(), "does not match its seal") || !strings.Contains(e.String(), "psub model -reseal") {
		t.Fatalf("edited pipeline: exit %d, stderr %q", code, e.String())
	}
	var res map[string]any
	runJSON(t, &res, "model", "-reseal", edited)
	if res["kind"] != "segmenter" || res["resealed"] != true {
		t.Errorf("psub model -reseal: %v", res)
	}
	runJSON(t, &res, predict...)
	spaced := filepath.Join(dir, "spaced.json")
	os.WriteFile(spaced, []byte(strings.ReplaceAll(string(b), "\n ", "\n   ")), 0o644)
	runJSON(t, &res, "model", spaced)
}
