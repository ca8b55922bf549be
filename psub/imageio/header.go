package imageio

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"

	"github.com/probably-submodular/crf/internal/membudget"
)

// Decode is image.Decode (PNG, JPEG, BMP) with the size the header declares
// checked first: against what size bytes of file can hold (size < 0: not
// known, not checked) and against the memory budget (internal/membudget)
// for the decoded image and its Volume. A few bytes declaring 100000×100000
// are refused before any pixel is allocated.
func Decode(r io.Reader, size int64) (image.Image, string, error) {
	var head bytes.Buffer
	cfg, format, err := image.DecodeConfig(io.TeeReader(r, &head))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			if isTIFF(head.Bytes()) {
				return nil, "", errors.New("a TIFF image where PNG, JPEG or BMP is expected (ReadImage and ReadTIFF read TIFF)")
			}
			return nil, "", errors.New("not a PNG, JPEG, BMP or TIFF image")
		}
		return nil, "", fmt.Errorf("decoding image header: %w", err)
	}
	if err := checkConfig(cfg, format, size); err != nil {
		return nil, "", err
	}
	img, format, err := image.Decode(io.MultiReader(&head, r))
	if err != nil {
		return nil, "", fmt.Errorf("decoding %s image: %w", format, err)
	}
	return img, format, nil
}

// maxPixelsPerByte bounds how many pixels one byte of a file of the format
// can encode: PNG's Deflate expands at most about 1032:1 and a 1-bit PNG
// packs 8 pixels a byte; a baseline JPEG spends at least 2 bits on an 8×8
// block of each component, 4:2:0 subsampling covering 4 luma blocks (so
// 1024 pixels a byte, taken as 4096 with margin); an uncompressed BMP holds
// at least 1 bit a pixel.
func maxPixelsPerByte(format string) int64 {
	switch format {
	case "png":
		return 8 * 1040
	case "jpeg":
		return 4096
	case "bmp":
		return 8
	}
	return 1 << 20
}

// checkConfig checks a declared image size against the file and the budget.
func checkConfig(cfg image.Config, format string, size int64) error {
	w, h := int64(cfg.Width), int64(cfg.Height)
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%s image is empty (%dx%d)", format, w, h)
	}
	pixels := membudget.Bytes(w, h)
	if size >= 0 {
		if can := membudget.Add(membudget.Bytes(size, maxPixelsPerByte(format)), 1<<12); pixels > can {
			return fmt.Errorf("%s header declares %dx%d pixels, more than a file of %d bytes can hold (at most %d pixels): the file is truncated or damaged",
				format, w, h, size, can)
		}
	}
	// What image.Decode allocates for the colour model, and the Volume of
	// float32 samples (1 or 3 channels) that FromImage makes of it.
	decoded, channels := int64(4), int64(3)
	switch cfg.ColorModel {
	case color.GrayModel:
		decoded, channels = 1, 1
	case color.Gray16Model:
		decoded, channels = 2, 1
	case color.RGBA64Model, color.NRGBA64Model:
		decoded = 8
	}
	if _, ok := cfg.ColorModel.(color.Palette); ok {
		decoded = 1
	}
	return membudget.Check(fmt.Sprintf("a %dx%d %s image", w, h, format), membudget.Bytes(pixels, decoded+4*channels))
}
