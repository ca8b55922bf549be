package data

import (
	"encoding/json"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cowsFolder returns the real tud_cows folder or skips.
func cowsFolder(t *testing.T) string {
	dir, err := Find("", CowsDir)
	if err != nil {
		t.Skipf("no %s: %v", CowsDir, err)
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyCached: files are checked against the shipped sums once per
// version: a passed file is not read again while its size and times stay
// (a forged cache entry is believed, which shows the cache is used), any
// change of content is found (a swapped file, an edit of the same size with
// the modification time set back), and a mismatch names the file, the
// expected and the found sum.
func TestVerifyCached(t *testing.T) {
	real := cowsFolder(t)
	a, b := "images/cow-pic110-sml-lt.png", "images/cow-pic111-sml-lt.png"
	sums, err := Checksums(CowsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir, cache string) []string // returns the files to verify
		want  []string                                       // parts of the error; nil = passes
	}{
		{"originals pass", func(t *testing.T, dir, _ string) []string {
			copyFile(t, filepath.Join(real, a), filepath.Join(dir, a))
			copyFile(t, filepath.Join(real, b), filepath.Join(dir, b))
			return []string{filepath.Join(dir, a), filepath.Join(dir, b)}
		}, nil},
		{"swapped image", func(t *testing.T, dir, _ string) []string {
			copyFile(t, filepath.Join(real, b), filepath.Join(dir, a))
			return []string{filepath.Join(dir, a)}
		}, []string{"cow-pic110-sml-lt.png: sha256 " + sums[b] + ", expected " + sums[a], "scripts/fetch-data tud_cows"}},
		{"one byte changed after passing, mtime set back", func(t *testing.T, dir, cache string) []string {
			p := filepath.Join(dir, a)
			copyFile(t, filepath.Join(real, a), p)
			if err := verifyCached(cache, dir, CowsDir, []string{p}); err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(p)
			data, _ := os.ReadFile(p)
			data[len(data)/2] ^= 1
			time.Sleep(10 * time.Millisecond) // a later status change time
			os.WriteFile(p, data, 0o644)
			os.Chtimes(p, st.ModTime(), st.ModTime())
			return []string{p}
		}, []string{"cow-pic110-sml-lt.png: sha256", "expected " + sums[a]}},
		{"a cached pass is not read again", func(t *testing.T, dir, cache string) []string {
			p := filepath.Join(dir, a)
			copyFile(t, filepath.Join(real, b), p) // wrong content...
			st, _ := os.Stat(p)
			abs, _ := filepath.Abs(p)
			forged := verifiedCache{Version: verifiedCacheVersion, Files: map[string]verifiedEntry{
				abs: {Size: st.Size(), MTime: st.ModTime().UnixNano(), CTime: changeTime(st), SHA256: sums[a]},
			}}
			os.MkdirAll(cache, 0o755)
			j, _ := json.Marshal(forged)
			os.WriteFile(filepath.Join(cache, CowsDir+".json"), j, 0o644) // ...that the cache says passed
			return []string{p}
		}, nil},
		{"a damaged cache is ignored", func(t *testing.T, dir, cache string) []string {
			copyFile(t, filepath.Join(real, b), filepath.Join(dir, a))
			os.MkdirAll(cache, 0o755)
			os.WriteFile(filepath.Join(cache, CowsDir+".json"), []byte("{not json"), 0o644)
			return []string{filepath.Join(dir, a)}
		}, []string{"expected " + sums[a]}},
		{"a file that is not of the data set", func(t *testing.T, dir, _ string) []string {
			copyFile(t, filepath.Join(real, a), filepath.Join(dir, "images/extra.png"))
			return []string{filepath.Join(dir, "images/extra.png")}
		}, []string{"not a file of data set tud_cows"}},
		{"a missing file", func(t *testing.T, dir, _ string) []string {
			return []string{filepath.Join(dir, a)}
		}, []string{"no such file"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, cache := t.TempDir(), t.TempDir()
			files := c.setup(t, dir, cache)
			err := verifyCached(cache, dir, CowsDir, files)
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				t.Fatal("passed")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q does not say %q", err, w)
				}
			}
		})
	}
}

// TestBuildVerifies: the loaders verify what they read: a cows folder
// whose first image is another image's copy is refused by BuildCows.
func TestBuildVerifies(t *testing.T) {
	real := cowsFolder(t)
	dir := filepath.Join(t.TempDir(), CowsDir)
	for _, sub := range []string{"images", "masks"} {
		ents, err := os.ReadDir(filepath.Join(real, sub))
		if err != nil {
			t.Fatal(err)
		}
		os.MkdirAll(filepath.Join(dir, sub), 0o755)
		for _, e := range ents {
			if err := os.Symlink(filepath.Join(real, sub, e.Name()), filepath.Join(dir, sub, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	first := filepath.Join(dir, "images/cow-pic110-sml-lt.png")
	os.Remove(first)
	copyFile(t, filepath.Join(real, "images/cow-pic111-sml-lt.png"), first)
	_, err := BuildCows(ImageSetOptions{Path: filepath.Dir(dir), Limit: 1, Downscale: 4})
	if err == nil || !strings.Contains(err.Error(), "cow-pic110-sml-lt.png: sha256") {
		t.Fatalf("BuildCows on a swapped image: %v", err)
	}
}

// cowsFiles is every image and mask of the real cows.
func cowsFiles(b *testing.B) (string, []string) {
	dir, err := Find("", CowsDir)
	if err != nil {
		b.Skipf("no %s: %v", CowsDir, err)
	}
	images, masks, err := ImageMaskPairs(filepath.Join(dir, "images"), filepath.Join(dir, "masks"), ".png")
	if err != nil {
		b.Fatal(err)
	}
	return dir, append(images, masks...)
}

// BenchmarkVerifyCows measures VerifyCached on the 222 images and masks of
// the cows: first (every file hashed) and cached (stat only).
func BenchmarkVerifyCows(b *testing.B) {
	dir, files := cowsFiles(b)
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			if err := verifyCached(b.TempDir(), dir, CowsDir, files); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := b.TempDir()
		if err := verifyCached(cache, dir, CowsDir, files); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := verifyCached(cache, dir, CowsDir, files); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestVerifyDerivedByPixels: a derived file (an epfl_mito mask) is checked
// by the sum of its pixels, not of its bytes: the same mask written by
// another PNG encoder passes, one pixel changed fails, naming the pixel sum.
func TestVerifyDerivedByPixels(t *testing.T) {
	real, err := Find("", MitoDir)
	if err != nil {
		t.Skipf("no %s: %v", MitoDir, err)
	}
	const rel = "training/masks_derived/train_001.png"
	src, err := os.Open(filepath.Join(real, rel))
	if err != nil {
		t.Skip(err)
	}
	img, err := png.Decode(src)
	src.Close()
	if err != nil {
		t.Fatal(err)
	}
	write := func(t *testing.T, path string, m image.Image) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(f, m); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, rel)
	write(t, path, img)
	if err := verifyCached(t.TempDir(), dir, MitoDir, []string{path}); err != nil {
		t.Fatalf("the same pixels from another encoder: %v", err)
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Bounds(), img, img.Bounds().Min, draw.Src)
	g.Pix[0] ^= 0xff
	write(t, path, g)
	err = verifyCached(t.TempDir(), dir, MitoDir, []string{path})
	if err == nil || !strings.Contains(err.Error(), "pixel sum") || !strings.Contains(err.Error(), path) {
		t.Fatalf("one pixel changed: %v; want an error naming %s and its pixel sum", err, path)
	}
}
