package imageio

import (
	"bufio"
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // registers JPEG with image.Decode
	"image/png"
	"io"
	"os"

	_ "golang.org/x/image/bmp" // registers BMP with image.Decode

	"github.com/probably-submodular/crf/internal/safefile"
)

// ReadImage reads a PNG, JPEG, BMP or TIFF file into a Volume. PNG, JPEG and
// BMP give a 2-D image (Depth 1); a TIFF file gives one slice per page (see
// DecodeTIFF). The format is recognised from the file's first bytes, not its
// name. Channels and value range follow FromImage.
func ReadImage(path string) (*Volume, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	if isTIFF(head[:n]) {
		v, err := DecodeTIFF(f, st.Size(), nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return v, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	v, err := decodeImage(bufio.NewReader(f), st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// isTIFF reports whether b starts with a TIFF (or BigTIFF) signature.
func isTIFF(b []byte) bool {
	return len(b) >= 4 && (bytes.Equal(b[:4], []byte("II*\x00")) || bytes.Equal(b[:4], []byte("MM\x00*")) ||
		bytes.Equal(b[:4], []byte("II+\x00")) || bytes.Equal(b[:4], []byte("MM\x00+")))
}

// DecodeImage decodes one PNG, JPEG or BMP image from r with FromImage.
// The size its header declares is checked against the memory budget
// (Decode) before the pixels are allocated.
func DecodeImage(r io.Reader) (*Volume, error) {
	return decodeImage(r, -1)
}

func decodeImage(r io.Reader, size int64) (*Volume, error) {
	img, format, err := Decode(r, size)
	if err != nil {
		return nil, err
	}
	v := FromImage(img)
	if v.Voxels() == 0 {
		return nil, fmt.Errorf("%s image is empty (%dx%d)", format, v.Width, v.Height)
	}
	return v, nil
}

// FromImage converts a decoded image into a 2-D Volume.
//
// Greyscale images (image.Gray, image.Gray16; this is what image/png gives
// for grey PNGs of any bit depth and image/jpeg for grey JPEGs) have
// Channels 1; everything else has Channels 3 (R, G, B, alpha dropped, not
// premultiplied). Values are 0–255, except for 16-bit sources (image.Gray16,
// image.RGBA64, image.NRGBA64: 16-bit PNG), which keep 0–65535. A 1-bit PNG
// decodes as image.Gray with values 0 and 255.
func FromImage(img image.Image) *Volume {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	switch im := img.(type) {
	case *image.Gray:
		v := NewVolume(w, h, 1, 1)
		for y := 0; y < h; y++ {
			row := im.Pix[y*im.Stride : y*im.Stride+w]
			out := v.Pix[y*w : (y+1)*w]
			for x, p := range row {
				out[x] = float32(p)
			}
		}
		return v
	case *image.Gray16:
		v := NewVolume(w, h, 1, 1)
		for y := 0; y < h; y++ {
			row := im.Pix[y*im.Stride : y*im.Stride+2*w]
			for x := 0; x < w; x++ {
				v.Pix[y*w+x] = float32(uint16(row[2*x])<<8 | uint16(row[2*x+1]))
			}
		}
		return v
	case *image.RGBA:
		if opaque(im) {
			v := NewVolume(w, h, 1, 3)
			for y := 0; y < h; y++ {
				row := im.Pix[y*im.Stride : y*im.Stride+4*w]
				out := v.Pix[3*y*w : 3*(y+1)*w]
				for x := 0; x < w; x++ {
					out[3*x], out[3*x+1], out[3*x+2] = float32(row[4*x]), float32(row[4*x+1]), float32(row[4*x+2])
				}
			}
			return v
		}
	case *image.RGBA64, *image.NRGBA64:
		v := NewVolume(w, h, 1, 3)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				c := color.NRGBA64Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
				i := 3 * (y*w + x)
				v.Pix[i], v.Pix[i+1], v.Pix[i+2] = float32(c.R), float32(c.G), float32(c.B)
			}
		}
		return v
	}
	v := NewVolume(w, h, 1, 3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
			i := 3 * (y*w + x)
			v.Pix[i], v.Pix[i+1], v.Pix[i+2] = float32(c.R), float32(c.G), float32(c.B)
		}
	}
	return v
}

// opaque reports whether every alpha of an RGBA image is 255, so that its
// premultiplied values are the plain colour.
func opaque(im *image.RGBA) bool {
	w, h := im.Rect.Dx(), im.Rect.Dy()
	for y := 0; y < h; y++ {
		row := im.Pix[y*im.Stride : y*im.Stride+4*w]
		for x := 3; x < len(row); x += 4 {
			if row[x] != 255 {
				return false
			}
		}
	}
	return true
}

// Luma returns a one-channel copy of v: v itself (copied) when it has one
// channel, else Y = 0.299 R + 0.587 G + 0.114 B (ITU-R BT.601, as
// image/color.GrayModel). It panics on other channel counts (a programmer
// error: this package makes only 1 and 3).
func Luma(v *Volume) *Volume {
	out := NewVolume(v.Width, v.Height, v.Depth, 1)
	switch v.Channels {
	case 1:
		copy(out.Pix, v.Pix)
	case 3:
		for i := range out.Pix {
			out.Pix[i] = 0.299*v.Pix[3*i] + 0.587*v.Pix[3*i+1] + 0.114*v.Pix[3*i+2]
		}
	default:
		panic(fmt.Sprintf("imageio.Luma: %d channels", v.Channels))
	}
	return out
}

// WriteLabelPNG writes a 2-D label map as a 16-bit greyscale PNG, so label
// ids up to 65535 survive (superpixel maps), atomically (internal/safefile:
// a failed or killed write leaves the old file). It fails for a 3-D map or
// a label outside [0, 65535].
func WriteLabelPNG(path string, m *LabelMap) error {
	if m.Depth != 1 {
		return fmt.Errorf("%s: label map has depth %d; PNG holds 2-D maps only", path, m.Depth)
	}
	img := image.NewGray16(image.Rect(0, 0, m.Width, m.Height))
	for i, l := range m.Labels {
		if l < 0 || l > 65535 {
			return fmt.Errorf("%s: label %d at (%d,%d) does not fit 16 bits", path, l, i%m.Width, i/m.Width)
		}
		img.Pix[2*i], img.Pix[2*i+1] = byte(l>>8), byte(l)
	}
	return safefile.Write(path, func(w io.Writer) error { return png.Encode(w, img) })
}
