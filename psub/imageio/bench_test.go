package imageio

import (
	"bytes"
	"testing"
)

// An EM-like stack quick path: 1024×768×16 slices, 8 and 16 bits.
func BenchmarkTIFF(b *testing.B) {
	for _, bits := range []int{8, 16} {
		v := randomVolume(1024, 768, 16, 1<<bits-1, 5)
		var buf bytes.Buffer
		if err := EncodeTIFF(&buf, v, &TIFFWriteOptions{Bits: bits}); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		name := map[int]string{8: "8bit", 16: "16bit"}[bits]
		b.Run("decode-"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := DecodeTIFF(bytes.NewReader(data), int64(len(data)), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("encode-"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var out bytes.Buffer
				out.Grow(len(data))
				if err := EncodeTIFF(&out, v, &TIFFWriteOptions{Bits: bits}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Decoding a 1024×768 PNG slice, as ReadStack does 165 times per EM volume.
func BenchmarkDecodePNG(b *testing.B) {
	data := encodePNGBench(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeImage(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}

func encodePNGBench(b *testing.B) []byte {
	var buf bytes.Buffer
	g := gradient(1024, 768)
	if err := pngEncode(&buf, g); err != nil {
		b.Fatal(err)
	}
	return buf.Bytes()
}
