package imageio_test

import (
	"bytes"
	"fmt"

	"github.com/probably-submodular/crf/psub/imageio"
)

// A two-page 16-bit stack written as big-endian TIFF and read back.
func ExampleDecodeTIFF() {
	v := imageio.NewVolume(3, 2, 2, 1)
	for i := range v.Pix {
		v.Pix[i] = float32(1000 * i)
	}
	var buf bytes.Buffer
	if err := imageio.EncodeTIFF(&buf, v, &imageio.TIFFWriteOptions{Bits: 16, BigEndian: true}); err != nil {
		fmt.Println(err)
		return
	}
	got, err := imageio.DecodeTIFF(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Width, got.Height, got.Depth, got.Pix[got.Index(2, 1, 1)])
	// Output: 3 2 2 11000
}

// Thresholding a grey image into a 0/1 mask.
func ExampleMaskFromVolume() {
	v := imageio.NewVolume(4, 1, 1, 1)
	copy(v.Pix, []float32{0, 45, 211, 255}) // JPEG horse-mask values
	fmt.Println(imageio.MaskFromVolume(v, imageio.ThresholdHalf).Labels)
	// Output: [0 0 1 1]
}
