package imageio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/probably-submodular/crf/internal/safefile"
)

// TIFFWriteOptions tunes EncodeTIFF; nil means defaults.
type TIFFWriteOptions struct {
	Bits         int  // bits per sample, 8 or 16; 0 means 8
	BigEndian    bool // write "MM" (Motorola) byte order instead of "II"
	RowsPerStrip int  // rows per strip; 0 means strips of about 64 KiB
}

// WriteTIFF writes a greyscale volume as an uncompressed multi-page TIFF
// file, one page per slice (see EncodeTIFF), atomically (internal/safefile:
// a failed or killed write, such as a value that does not fit found in the
// last slice, leaves the old file).
func WriteTIFF(path string, v *Volume, opt *TIFFWriteOptions) error {
	return safefile.Write(path, func(w io.Writer) error { return EncodeTIFF(w, v, opt) })
}

// tiffLayout places one page: its strips, then its IFD, then the strip
// offset and count arrays when they do not fit in the IFD.
type tiffLayout struct {
	data, ifd, arrays int64
	strips            int
}

// EncodeTIFF writes a one-channel volume as a classic (32-bit offset)
// uncompressed TIFF with one BlackIsZero page per slice. Samples are rounded
// to the nearest integer; a NaN or a value outside [0, 2^Bits−1] is an
// error naming the voxel, never clamped silently. DecodeTIFF reads the result
// back exactly.
func EncodeTIFF(w io.Writer, v *Volume, opt *TIFFWriteOptions) error {
	if err := v.Check(); err != nil {
		return err
	}
	if v.Channels != 1 {
		return fmt.Errorf("TIFF writer: %d channels, only greyscale (1) is written", v.Channels)
	}
	return EncodeTIFFSamples(w, v.Width, v.Height, v.Depth, func(i int) float32 { return v.Pix[i] }, opt)
}

// WriteTIFFSamples is WriteTIFF of the volume whose voxel i (in Volume's
// order, one channel) is sample(i) (see EncodeTIFFSamples).
func WriteTIFFSamples(path string, width, height, depth int, sample func(i int) float32, opt *TIFFWriteOptions) error {
	return safefile.Write(path, func(w io.Writer) error { return EncodeTIFFSamples(w, width, height, depth, sample, opt) })
}

// EncodeTIFFSamples is EncodeTIFF of a one-channel width×height×depth
// volume given by its samples, voxel i in Volume's order being sample(i):
// the same bytes, without a float32 copy of the volume (a predicted mask
// is written from its label map). sample is called twice per voxel (the
// range check, then the pages), and must return the same value both times.
func EncodeTIFFSamples(w io.Writer, width, height, depth int, sample func(i int) float32, opt *TIFFWriteOptions) error {
	var o TIFFWriteOptions
	if opt != nil {
		o = *opt
	}
	if o.Bits == 0 {
		o.Bits = 8
	}
	if o.Bits != 8 && o.Bits != 16 {
		return fmt.Errorf("TIFF writer: %d bits per sample, expected 8 or 16", o.Bits)
	}
	if width <= 0 || height <= 0 || depth <= 0 {
		return fmt.Errorf("TIFF writer: volume %dx%dx%d: dimensions must be positive", width, height, depth)
	}
	maxV := float64(int(1)<<o.Bits - 1)
	for i := range width * height * depth {
		p := sample(i)
		if r := math.Round(float64(p)); !(r >= 0 && r <= maxV) {
			z, rest := i/(width*height), i%(width*height)
			return fmt.Errorf("TIFF writer: voxel (%d,%d,%d) is %v, outside [0,%v] for %d bits", rest%width, rest/width, z, p, maxV, o.Bits)
		}
	}
	var bo binary.ByteOrder = binary.LittleEndian
	mark := "II"
	if o.BigEndian {
		bo, mark = binary.BigEndian, "MM"
	}
	rowBytes := int64(width * o.Bits / 8)
	rps := o.RowsPerStrip
	if rps <= 0 {
		rps = int(max(1, (64<<10)/rowBytes))
	}
	rps = min(rps, height)
	strips := (height + rps - 1) / rps
	const entries = 11
	pageBytes := rowBytes * int64(height)

	lay := make([]tiffLayout, depth)
	pos := int64(8)
	for z := range lay {
		lay[z].strips = strips
		lay[z].data = pos
		pos += pageBytes
		pos += pos & 1 // IFDs start on a word boundary
		lay[z].ifd = pos
		pos += 2 + 12*entries + 4
		lay[z].arrays = pos
		if strips > 1 {
			pos += 8 * int64(strips)
		}
	}
	if pos > math.MaxUint32 {
		return fmt.Errorf("TIFF writer: %d bytes exceed the 4 GiB of classic TIFF", pos)
	}

	bw := bufio.NewWriterSize(w, 1<<16)
	written := int64(0)
	put := func(b []byte) {
		n, _ := bw.Write(b) // a write error sticks in bw and is returned by Flush
		written += int64(n)
	}
	u16 := func(x int) []byte { b := make([]byte, 2); bo.PutUint16(b, uint16(x)); return b }
	u32 := func(x int64) []byte { b := make([]byte, 4); bo.PutUint32(b, uint32(x)); return b }
	put([]byte(mark))
	put(u16(42))
	put(u32(lay[0].ifd))
	row := make([]byte, rowBytes)
	for z, l := range lay {
		for y := range height {
			start := (z*height + y) * width
			for x := range width {
				p := sample(start + x)
				if o.Bits == 8 {
					row[x] = byte(math.Round(float64(p)))
				} else {
					bo.PutUint16(row[2*x:], uint16(math.Round(float64(p))))
				}
			}
			put(row)
		}
		if written&1 == 1 {
			put([]byte{0})
		}
		if written != l.ifd {
			return errors.New("TIFF writer: layout mismatch (bug)")
		}
		entry := func(tag, typ int, count, value int64) {
			put(u16(tag))
			put(u16(typ))
			put(u32(count))
			if typ == typeShort && count == 1 {
				put(u16(int(value)))
				put(u16(0))
			} else {
				put(u32(value))
			}
		}
		offsets, counts := l.data, pageBytes // single strip: the values themselves
		if strips > 1 {
			offsets, counts = l.arrays, l.arrays+4*int64(strips)
		}
		next := int64(0)
		if z+1 < len(lay) {
			next = lay[z+1].ifd
		}
		put(u16(entries))
		entry(tagImageWidth, typeLong, 1, int64(width))
		entry(tagImageLength, typeLong, 1, int64(height))
		entry(tagBitsPerSample, typeShort, 1, int64(o.Bits))
		entry(tagCompression, typeShort, 1, compNone)
		entry(tagPhotometric, typeShort, 1, 1) // BlackIsZero
		entry(tagStripOffsets, typeLong, int64(strips), offsets)
		entry(tagSamplesPerPixel, typeShort, 1, 1)
		entry(tagRowsPerStrip, typeLong, 1, int64(rps))
		entry(tagStripByteCounts, typeLong, int64(strips), counts)
		entry(tagPlanarConfig, typeShort, 1, 1)
		// PageNumber: two SHORTs (page, total) packed in the value field.
		put(u16(tagPageNumber))
		put(u16(typeShort))
		put(u32(2))
		put(u16(z))
		put(u16(len(lay)))
		put(u32(next))
		if strips > 1 {
			for s := range strips {
				put(u32(l.data + int64(s*rps)*rowBytes))
			}
			for s := range strips {
				put(u32(int64(min(rps, height-s*rps)) * rowBytes))
			}
		}
	}
	return bw.Flush()
}
