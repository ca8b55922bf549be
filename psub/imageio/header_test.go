package imageio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/bmp"

	"github.com/probably-submodular/crf/internal/membudget"
)

// craftedPNG is a 1×1 grey PNG whose header declares w×h (CRC fixed), so
// that it decodes as far as its pixels: about 68 bytes.
func craftedPNG(t testing.TB, w, h uint32, c color.Model) []byte {
	var img image.Image = image.NewGray(image.Rect(0, 0, 1, 1))
	if c == color.RGBAModel {
		img = image.NewRGBA(image.Rect(0, 0, 1, 1))
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], w)
	binary.BigEndian.PutUint32(p[20:], h)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	return p
}

// craftedBMP is a 1×1 BMP whose header declares w×h.
func craftedBMP(t testing.TB, w, h int32) []byte {
	var b bytes.Buffer
	if err := bmp.Encode(&b, image.NewRGBA(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	binary.LittleEndian.PutUint32(p[18:], uint32(w))
	binary.LittleEndian.PutUint32(p[22:], uint32(h))
	return p
}

// craftedJPEG is a 1×1 JPEG whose SOF0 declares w×h.
func craftedJPEG(t testing.TB, w, h uint16) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)), nil); err != nil {
		t.Fatal(err)
	}
	p := b.Bytes()
	k := bytes.Index(p, []byte{0xff, 0xc0})
	if k < 0 {
		t.Fatal("no SOF0 in the encoded JPEG")
	}
	binary.BigEndian.PutUint16(p[k+5:], h)
	binary.BigEndian.PutUint16(p[k+7:], w)
	return p
}

// TestDeclaredSizeRefused: each crafted header is refused before its
// pixels are allocated, by the check named in want (the file-size bound
// or the memory budget); without the check the decoder would allocate and
// fail later with another message, or succeed.
func TestDeclaredSizeRefused(t *testing.T) {
	grey := image.NewGray(image.Rect(0, 0, 200, 100)) // 20000 pixels: 100 KB of decoded image and volume
	legit := encodePNG(t, grey)
	var legitJPEG, legitBMP bytes.Buffer
	if err := jpeg.Encode(&legitJPEG, grey, nil); err != nil {
		t.Fatal(err)
	}
	if err := bmp.Encode(&legitBMP, image.NewRGBA(image.Rect(0, 0, 100, 100))); err != nil {
		t.Fatal(err)
	}
	stack := func(pages, w, h int) []byte {
		var b bytes.Buffer
		if err := EncodeTIFF(&b, randomVolume(w, h, pages, 255, 1), &TIFFWriteOptions{Bits: 8}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	const fileBound, budget = "can hold", "memory budget"
	for _, c := range []struct {
		name   string
		file   []byte
		limit  string // PSUB_MAX_MEMORY
		want   string
		stream bool // through DecodeImage (size unknown) instead of ReadImage
	}{
		{"png 100000x100000", craftedPNG(t, 100000, 100000, color.GrayModel), "1TB", fileBound, false},
		{"png 100000x100000 streamed", craftedPNG(t, 100000, 100000, color.GrayModel), "", budget, true},
		{"png rgba 2^31-1 square streamed", craftedPNG(t, 1<<31-1, 1<<31-1, color.RGBAModel), "1TB", "dimension overflow", true},
		{"png 2^29 square streamed", craftedPNG(t, 1<<29, 1<<29, color.GrayModel), "1TB", "needs 1280.0 PiB", true},
		{"png 3000x3000 in 68 bytes", craftedPNG(t, 3000, 3000, color.GrayModel), "1TB", fileBound, false},
		{"png 1x20000000 in 68 bytes", craftedPNG(t, 1, 20000000, color.GrayModel), "1TB", fileBound, false},
		{"png genuine over a small budget", legit, "50KB", budget, false},
		{"png genuine over a small budget streamed", legit, "50KB", budget, true},
		{"bmp 100000x100000", craftedBMP(t, 100000, 100000), "1TB", fileBound, false},
		{"bmp 100000x100000 streamed", craftedBMP(t, 100000, 100000), "", budget, true},
		{"bmp 60000 square top-down", craftedBMP(t, 60000, -60000), "1TB", fileBound, false},
		{"bmp genuine over a small budget", legitBMP.Bytes(), "100KB", budget, false},
		{"jpeg 65535x65535", craftedJPEG(t, 65535, 65535), "1TB", fileBound, false},
		{"jpeg 65535x65535 streamed", craftedJPEG(t, 65535, 65535), "", budget, true},
		{"jpeg genuine over a small budget", legitJPEG.Bytes(), "50KB", budget, false},
		{"tiff stack over a small budget", stack(3, 300, 200), "500KB", budget, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(membudget.Env, c.limit)
			var err error
			if c.stream {
				_, err = DecodeImage(bytes.NewReader(c.file))
			} else {
				path := filepath.Join(t.TempDir(), "crafted")
				writeFile(t, path, c.file)
				_, err = ReadImage(path)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("%d-byte file: error %v, want one that says %q", len(c.file), err, c.want)
			}
		})
	}
	// A stack is checked as a whole before it is allocated: 40 slices of
	// 200x100 grey (3.2 MB of samples) under a 1 MB budget.
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("s%02d.png", i))
		writeFile(t, p, legit)
		paths = append(paths, p)
	}
	t.Setenv(membudget.Env, "1MB")
	if _, err := ReadStack(paths); err == nil || !strings.Contains(err.Error(), "a stack of 40 slices of 200x100") {
		t.Errorf("stack over the budget: %v", err)
	}
	t.Setenv(membudget.Env, "")
	if _, err := ReadStack(paths); err != nil {
		t.Errorf("stack under the default budget: %v", err)
	}
	// The same genuine files are read under the default budget.
	for _, f := range [][]byte{legit, legitJPEG.Bytes(), legitBMP.Bytes(), stack(3, 300, 200)} {
		t.Setenv(membudget.Env, "")
		if _, err := DecodeTIFFOrImage(f); err != nil {
			t.Errorf("genuine file refused: %v", err)
		}
	}
}

// DecodeTIFFOrImage reads an in-memory file as ReadImage reads a path.
func DecodeTIFFOrImage(b []byte) (*Volume, error) {
	if isTIFF(b) {
		return DecodeTIFF(bytes.NewReader(b), int64(len(b)), nil)
	}
	return decodeImage(bytes.NewReader(b), int64(len(b)))
}

// FuzzDecodeImage: no PNG, JPEG or BMP file panics or allocates beyond a
// small budget through the project's reader, and an accepted one gives a
// consistent volume.
func FuzzDecodeImage(f *testing.F) {
	f.Setenv(membudget.Env, "64MB")
	grey := image.NewGray(image.Rect(0, 0, 5, 3))
	for i := range grey.Pix {
		grey.Pix[i] = byte(17 * i)
	}
	f.Add(encodePNG(f, grey))
	var j, b bytes.Buffer
	jpeg.Encode(&j, grey, nil)
	bmp.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2)))
	f.Add(j.Bytes())
	f.Add(b.Bytes())
	f.Add(craftedPNG(f, 100000, 100000, color.GrayModel))
	f.Add(craftedBMP(f, 30000, -30000))
	f.Add(craftedJPEG(f, 65535, 65535))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, size := range []int64{int64(len(data)), -1} {
			v, err := decodeImage(bytes.NewReader(data), size)
			if err != nil {
				continue
			}
			if err := v.Check(); err != nil || v.Depth != 1 || (v.Channels != 1 && v.Channels != 3) {
				t.Fatalf("accepted image gives an inconsistent volume: %v", err)
			}
		}
	})
}
