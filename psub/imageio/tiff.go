package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/image/tiff/lzw"

	"github.com/probably-submodular/crf/internal/membudget"
)

// TIFFOptions tunes DecodeTIFF; nil means defaults.
type TIFFOptions struct {
	// MaxSamples is the largest Width×Height×Depth accepted; 0 means as
	// many as the memory budget holds (internal/membudget:
	// PSUB_MAX_MEMORY, 4 bytes a sample).
	MaxSamples int64
}

// TIFF tags and field types used here (TIFF 6.0 specification).
const (
	tagImageWidth      = 256
	tagImageLength     = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagFillOrder       = 266
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagPlanarConfig    = 284
	tagPageNumber      = 297
	tagPredictor       = 317
	tagTileWidth       = 322
	tagSampleFormat    = 339

	typeByte  = 1
	typeShort = 3
	typeLong  = 4

	compNone     = 1
	compLZW      = 5
	compDeflate  = 8
	compPackBits = 32773
	compDeflateX = 32946 // the old Adobe code for Deflate
)

// maxRatio bounds the decompressed/compressed size ratio of a strip for each
// compression, so that a small file cannot make the decoder allocate a huge
// buffer: PackBits turns 2 bytes into at most 128, Deflate expands at most
// about 1032:1, and a TIFF LZW code (9–12 bits) yields at most 4096 bytes.
func maxRatio(comp int) int64 {
	switch comp {
	case compPackBits:
		return 64
	case compDeflate, compDeflateX:
		return 1040
	case compLZW:
		return 4096
	}
	return 1
}

// fieldSize is the byte size of one value of a TIFF field type, or 0.
func fieldSize(typ uint16) int64 {
	switch typ {
	case 1, 2, 6, 7: // BYTE, ASCII, SBYTE, UNDEFINED
		return 1
	case 3, 8: // SHORT, SSHORT
		return 2
	case 4, 9, 11: // LONG, SLONG, FLOAT
		return 4
	case 5, 10, 12: // RATIONAL, SRATIONAL, DOUBLE
		return 8
	}
	return 0
}

// tiffPage is the validated description of one IFD.
type tiffPage struct {
	width, height, bits, comp, photometric, predictor int
	rowsPerStrip                                      int
	offsets, counts                                   []int64
}

type tiffDecoder struct {
	r    io.ReaderAt
	size int64
	bo   binary.ByteOrder
	// maxSamples bounds the samples of the volume; 0: the memory budget.
	maxSamples int64
}

// checkSamples checks that a volume of n samples (what, for the message)
// fits opt.MaxSamples or, without it, the memory budget at 4 bytes a
// sample.
func (d *tiffDecoder) checkSamples(n int64, what string) error {
	if d.maxSamples == 0 {
		return membudget.Check(what, membudget.Bytes(n, 4))
	}
	if n > d.maxSamples {
		return fmt.Errorf("%s: %d samples, more than the limit %d", what, n, d.maxSamples)
	}
	return nil
}

// readAt reads n bytes at off, checking the range against the file size
// first so that no read allocates more than the file holds.
func (d *tiffDecoder) readAt(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > d.size || n > d.size-off {
		return nil, fmt.Errorf("%d bytes at offset %d lie beyond the end of the file (%d bytes)", n, off, d.size)
	}
	b := make([]byte, n)
	if _, err := d.r.ReadAt(b, off); err != nil && !(err == io.EOF && off+n == d.size) {
		return nil, err
	}
	return b, nil
}

// ReadTIFF reads a multi-page greyscale TIFF file into a volume with one
// slice per page (see DecodeTIFF).
func ReadTIFF(path string) (*Volume, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	v, err := DecodeTIFF(f, st.Size(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// DecodeTIFF decodes every page of a greyscale TIFF of size bytes into one
// volume, page i being z = i. It reads both byte orders; 1-, 8- and 16-bit
// unsigned samples (1-bit as 0/255, as image/png does; 16-bit as 0–65535);
// BlackIsZero and WhiteIsZero (inverted on reading, so that larger is
// always brighter); strips, uncompressed or compressed with LZW, Deflate or
// PackBits, with or without horizontal differencing (predictor 2). All
// pages must have the same size. Tiles, colour, planar data, BigTIFF and
// floating-point samples are rejected with an error, as is any offset or
// size that does not fit the file. Allocation is bounded by the file size
// (uncompressed strips must lie in the file, compressed ones may expand only
// up to their format's maximum ratio) and by opt.MaxSamples, or the memory
// budget (internal/membudget) when that is 0: checked page by page before
// the volume is allocated.
func DecodeTIFF(r io.ReaderAt, size int64, opt *TIFFOptions) (*Volume, error) {
	d := &tiffDecoder{r: r, size: size}
	if opt != nil && opt.MaxSamples > 0 {
		d.maxSamples = opt.MaxSamples
	}
	head, err := d.readAt(0, 8)
	if err != nil {
		return nil, fmt.Errorf("TIFF header: %w", err)
	}
	switch string(head[:2]) {
	case "II":
		d.bo = binary.LittleEndian
	case "MM":
		d.bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("not a TIFF file (byte order mark %q)", head[:2])
	}
	switch d.bo.Uint16(head[2:]) {
	case 42:
	case 43:
		return nil, errors.New("BigTIFF is not supported")
	default:
		return nil, fmt.Errorf("not a TIFF file (magic %d, expected 42)", d.bo.Uint16(head[2:]))
	}

	var pages []*tiffPage
	seen := map[int64]bool{}
	var total, compressed int64
	for off := int64(d.bo.Uint32(head[4:])); off != 0; {
		if seen[off] {
			return nil, fmt.Errorf("page %d: IFD offset %d repeats (loop in the IFD chain)", len(pages), off)
		}
		seen[off] = true
		p, next, err := d.readIFD(off)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", len(pages), err)
		}
		if len(pages) > 0 && (p.width != pages[0].width || p.height != pages[0].height) {
			return nil, fmt.Errorf("page %d is %dx%d but page 0 is %dx%d; a stack needs equal pages",
				len(pages), p.width, p.height, pages[0].width, pages[0].height)
		}
		total += int64(p.width) * int64(p.height)
		if err := d.checkSamples(total, fmt.Sprintf("a stack of %d pages of %dx%d", len(pages)+1, p.width, p.height)); err != nil {
			return nil, fmt.Errorf("page %d: %w", len(pages), err)
		}
		for _, c := range p.counts {
			compressed += c
		}
		if compressed > size {
			// Strips do not share bytes in files written by real writers;
			// allowing it would let a tiny file expand without bound.
			return nil, fmt.Errorf("page %d: strips claim %d bytes in all, more than the file's %d (overlapping strips)", len(pages), compressed, size)
		}
		pages = append(pages, p)
		off = next
	}
	if len(pages) == 0 {
		return nil, errors.New("TIFF file has no pages (first IFD offset is 0)")
	}

	w, h := pages[0].width, pages[0].height
	v := NewVolume(w, h, len(pages), 1)
	for z, p := range pages {
		if err := d.decodePage(p, v.Pix[z*w*h:(z+1)*w*h]); err != nil {
			return nil, fmt.Errorf("page %d: %w", z, err)
		}
	}
	return v, nil
}

// readIFD parses and validates the IFD at off and returns the offset of the
// next one.
func (d *tiffDecoder) readIFD(off int64) (*tiffPage, int64, error) {
	nb, err := d.readAt(off, 2)
	if err != nil {
		return nil, 0, fmt.Errorf("IFD at %d: %w", off, err)
	}
	n := int64(d.bo.Uint16(nb))
	ents, err := d.readAt(off+2, 12*n+4)
	if err != nil {
		return nil, 0, fmt.Errorf("IFD at %d with %d entries: %w", off, n, err)
	}
	next := int64(d.bo.Uint32(ents[12*n:]))
	p := &tiffPage{bits: 1, comp: compNone, photometric: 1, predictor: 1} // TIFF 6.0 defaults; a missing Photometric is read as BlackIsZero
	spp, planar, fill, format := 1, 1, 1, 1
	haveW, haveH := false, false
	for i := int64(0); i < n; i++ {
		e := ents[12*i : 12*i+12]
		tag, typ, count := d.bo.Uint16(e), d.bo.Uint16(e[2:]), int64(d.bo.Uint32(e[4:]))
		switch tag {
		case tagImageWidth, tagImageLength, tagBitsPerSample, tagCompression, tagPhotometric, tagFillOrder,
			tagStripOffsets, tagSamplesPerPixel, tagRowsPerStrip, tagStripByteCounts, tagPlanarConfig,
			tagPredictor, tagSampleFormat:
		case tagTileWidth:
			return nil, 0, errors.New("tiled TIFF is not supported (strips only)")
		default:
			continue // tags without effect on the pixels are skipped unread
		}
		vals, err := d.values(tag, typ, count, e[8:12])
		if err != nil {
			return nil, 0, err
		}
		first := vals[0]
		switch tag {
		case tagImageWidth:
			p.width, haveW = int(min(first, 1<<31)), true
		case tagImageLength:
			p.height, haveH = int(min(first, 1<<31)), true
		case tagBitsPerSample:
			for _, b := range vals {
				if b != first {
					return nil, 0, fmt.Errorf("unsupported bit depths %v (samples differ)", vals)
				}
			}
			p.bits = int(min(first, 1<<16))
		case tagCompression:
			p.comp = int(first)
		case tagPhotometric:
			p.photometric = int(first)
		case tagFillOrder:
			fill = int(first)
		case tagStripOffsets:
			p.offsets = vals
		case tagSamplesPerPixel:
			spp = int(min(first, 1<<16))
		case tagRowsPerStrip:
			p.rowsPerStrip = int(min(first, 1<<31))
		case tagStripByteCounts:
			p.counts = vals
		case tagPlanarConfig:
			planar = int(first)
		case tagPredictor:
			p.predictor = int(first)
		case tagSampleFormat:
			format = int(first)
		}
	}
	switch {
	case !haveW || !haveH:
		return nil, 0, errors.New("ImageWidth or ImageLength missing")
	case p.width <= 0 || p.height <= 0:
		return nil, 0, fmt.Errorf("image size %dx%d", p.width, p.height)
	}
	if err := d.checkSamples(int64(p.width)*int64(p.height), fmt.Sprintf("a %dx%d page", p.width, p.height)); err != nil {
		return nil, 0, err
	}
	switch {
	case spp != 1:
		return nil, 0, fmt.Errorf("%d samples per pixel; only greyscale (1) is supported", spp)
	case p.bits != 1 && p.bits != 8 && p.bits != 16:
		return nil, 0, fmt.Errorf("unsupported bit depth %d (1, 8 or 16 expected)", p.bits)
	case format != 1:
		return nil, 0, fmt.Errorf("sample format %d not supported (unsigned integers only)", format)
	case p.photometric != 0 && p.photometric != 1:
		return nil, 0, fmt.Errorf("photometric interpretation %d not supported (greyscale 0 or 1 expected)", p.photometric)
	case planar != 1 && planar != 2: // with one sample per pixel both layouts are the same
		return nil, 0, fmt.Errorf("planar configuration %d", planar)
	case fill != 1:
		return nil, 0, fmt.Errorf("fill order %d not supported", fill)
	case p.predictor != 1 && !(p.predictor == 2 && p.bits != 1):
		return nil, 0, fmt.Errorf("predictor %d with %d-bit samples not supported", p.predictor, p.bits)
	}
	switch p.comp {
	case compNone, compLZW, compDeflate, compDeflateX, compPackBits:
	default:
		return nil, 0, fmt.Errorf("compression %d not supported (none, LZW, Deflate, PackBits)", p.comp)
	}
	if p.rowsPerStrip <= 0 || p.rowsPerStrip > p.height {
		p.rowsPerStrip = p.height
	}
	strips := (p.height + p.rowsPerStrip - 1) / p.rowsPerStrip
	if len(p.offsets) != strips {
		return nil, 0, fmt.Errorf("%d strip offsets, expected %d (%d rows, %d per strip)", len(p.offsets), strips, p.height, p.rowsPerStrip)
	}
	rowBytes := int64(p.width*p.bits+7) / 8
	if p.counts == nil && p.comp == compNone && strips == 1 {
		p.counts = []int64{rowBytes * int64(p.height)} // some writers omit it for one raw strip
	}
	if len(p.counts) != strips {
		return nil, 0, fmt.Errorf("%d strip byte counts, expected %d", len(p.counts), strips)
	}
	for s := range strips {
		rows := int64(min(p.rowsPerStrip, p.height-s*p.rowsPerStrip))
		want := rows * rowBytes
		off, cnt := p.offsets[s], p.counts[s]
		if off+cnt > d.size {
			return nil, 0, fmt.Errorf("strip %d: %d bytes at offset %d lie beyond the end of the file (%d bytes)", s, cnt, off, d.size)
		}
		if p.comp == compNone && cnt < want {
			return nil, 0, fmt.Errorf("strip %d: %d bytes, expected %d for %d rows", s, cnt, want, rows)
		}
		if p.comp != compNone && want > maxRatio(p.comp)*cnt+64 {
			return nil, 0, fmt.Errorf("strip %d: %d compressed bytes cannot hold %d bytes of rows", s, cnt, want)
		}
	}
	return p, next, nil
}

// values reads the integer values of an IFD entry; raw is its 4-byte value
// field, which holds the values themselves when they fit.
func (d *tiffDecoder) values(tag, typ uint16, count int64, raw []byte) ([]int64, error) {
	sz := fieldSize(typ)
	if typ != typeByte && typ != typeShort && typ != typeLong {
		return nil, fmt.Errorf("tag %d: field type %d, expected an unsigned integer type", tag, typ)
	}
	if count == 0 {
		return nil, fmt.Errorf("tag %d: no values", tag)
	}
	data := raw
	if sz*count > 4 {
		off := int64(d.bo.Uint32(raw))
		var err error
		if data, err = d.readAt(off, sz*count); err != nil { // bounded by the file size
			return nil, fmt.Errorf("tag %d: %w", tag, err)
		}
	}
	vals := make([]int64, count)
	for i := range vals {
		switch typ {
		case typeByte:
			vals[i] = int64(data[i])
		case typeShort:
			vals[i] = int64(d.bo.Uint16(data[2*i:]))
		case typeLong:
			vals[i] = int64(d.bo.Uint32(data[4*i:]))
		}
	}
	return vals, nil
}

// decodePage decodes the strips of p into out (width×height samples).
func (d *tiffDecoder) decodePage(p *tiffPage, out []float32) error {
	rowBytes := (p.width*p.bits + 7) / 8
	for s := range p.offsets {
		y0 := s * p.rowsPerStrip
		rows := min(p.rowsPerStrip, p.height-y0)
		buf, err := d.strip(p, s, rows*rowBytes)
		if err != nil {
			return fmt.Errorf("strip %d: %w", s, err)
		}
		if p.predictor == 2 {
			undoPredictor(buf, rowBytes, p.bits, d.bo)
		}
		unpack(buf, out[y0*p.width:(y0+rows)*p.width], p.width, rowBytes, p.bits, p.photometric == 0, d.bo)
	}
	return nil
}

// strip returns the decompressed bytes of strip s, exactly want of them.
func (d *tiffDecoder) strip(p *tiffPage, s, want int) ([]byte, error) {
	raw, err := d.readAt(p.offsets[s], p.counts[s])
	if err != nil {
		return nil, err
	}
	if p.comp == compNone {
		return raw[:want], nil
	}
	var rd io.Reader
	switch p.comp {
	case compPackBits:
		return unpackBits(raw, want)
	case compLZW:
		lr := lzw.NewReader(bytes.NewReader(raw), lzw.MSB, 8)
		defer lr.Close()
		rd = lr
	case compDeflate, compDeflateX:
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("deflate: %w", err)
		}
		defer zr.Close()
		rd = zr
	}
	buf := make([]byte, want)
	if n, err := io.ReadFull(rd, buf); err != nil {
		return nil, fmt.Errorf("compressed data gave %d bytes, expected %d: %w", n, want, err)
	}
	return buf, nil
}

// unpackBits decodes PackBits data into exactly want bytes.
func unpackBits(src []byte, want int) ([]byte, error) {
	dst := make([]byte, 0, want)
	for i := 0; i < len(src) && len(dst) < want; {
		n := int(int8(src[i]))
		i++
		switch {
		case n >= 0: // n+1 literal bytes
			if i+n+1 > len(src) {
				return nil, fmt.Errorf("packbits: literal run of %d bytes truncated", n+1)
			}
			dst = append(dst, src[i:i+n+1]...)
			i += n + 1
		case n != -128: // one byte repeated 1-n times
			if i >= len(src) {
				return nil, errors.New("packbits: repeat run truncated")
			}
			for range 1 - n {
				dst = append(dst, src[i])
			}
			i++
		}
	}
	if len(dst) < want {
		return nil, fmt.Errorf("packbits data gave %d bytes, expected %d", len(dst), want)
	}
	return dst[:want], nil
}

// undoPredictor reverses horizontal differencing (TIFF predictor 2) in place.
func undoPredictor(buf []byte, rowBytes, bits int, bo binary.ByteOrder) {
	for r := 0; r+rowBytes <= len(buf); r += rowBytes {
		row := buf[r : r+rowBytes]
		if bits == 8 {
			for i := 1; i < len(row); i++ {
				row[i] += row[i-1]
			}
			continue
		}
		for i := 2; i+1 < len(row); i += 2 {
			bo.PutUint16(row[i:], bo.Uint16(row[i:])+bo.Uint16(row[i-2:]))
		}
	}
}

// unpack converts rows of packed samples into float32 values.
func unpack(buf []byte, out []float32, width, rowBytes, bits int, invert bool, bo binary.ByteOrder) {
	rows := len(out) / width
	for y := range rows {
		row := buf[y*rowBytes : (y+1)*rowBytes]
		o := out[y*width : (y+1)*width]
		switch bits {
		case 1:
			for x := range o {
				if row[x>>3]&(0x80>>(x&7)) != 0 {
					o[x] = 255
				} else {
					o[x] = 0
				}
			}
		case 8:
			for x := range o {
				o[x] = float32(row[x])
			}
		case 16:
			for x := range o {
				o[x] = float32(bo.Uint16(row[2*x:]))
			}
		}
		if invert {
			maxV := float32(255)
			if bits == 16 {
				maxV = 65535
			}
			for x := range o {
				o[x] = maxV - o[x]
			}
		}
	}
}
