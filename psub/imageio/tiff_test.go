package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/image/tiff"
)

// randomVolume fills a w×h×d volume with deterministic values in [0, maxV].
func randomVolume(w, h, d int, maxV uint32, seed uint32) *Volume {
	v := NewVolume(w, h, d, 1)
	x := seed
	for i := range v.Pix {
		x = x*1664525 + 1013904223 // LCG: deterministic, no global state
		v.Pix[i] = float32((x >> 8) % (maxV + 1))
	}
	return v
}

func TestTIFFRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name    string
		w, h, d int
		opt     TIFFWriteOptions
	}{
		{"8-bit little-endian one strip", 5, 4, 3, TIFFWriteOptions{Bits: 8}},
		{"8-bit big-endian", 5, 4, 3, TIFFWriteOptions{Bits: 8, BigEndian: true}},
		{"16-bit little-endian", 7, 3, 2, TIFFWriteOptions{Bits: 16}},
		{"16-bit big-endian", 7, 3, 2, TIFFWriteOptions{Bits: 16, BigEndian: true}},
		{"8-bit odd page size, partial last strip", 3, 5, 4, TIFFWriteOptions{Bits: 8, RowsPerStrip: 2}},
		{"16-bit big-endian many strips", 9, 10, 2, TIFFWriteOptions{Bits: 16, BigEndian: true, RowsPerStrip: 3}},
		{"single page single pixel", 1, 1, 1, TIFFWriteOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bits := max(tc.opt.Bits, 8)
			v := randomVolume(tc.w, tc.h, tc.d, 1<<bits-1, uint32(tc.w*31+tc.d))
			var buf bytes.Buffer
			if err := EncodeTIFF(&buf, v, &tc.opt); err != nil {
				t.Fatal(err)
			}
			got, err := DecodeTIFF(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got.Width != tc.w || got.Height != tc.h || got.Depth != tc.d || got.Channels != 1 || !equalF32(got.Pix, v.Pix) {
				t.Fatalf("round trip differs: got %dx%dx%d", got.Width, got.Height, got.Depth)
			}
			// Independent oracle for the writer: x/image/tiff reads the first page.
			img, err := tiff.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("x/image/tiff rejects our file: %v", err)
			}
			first := FromImage(img)
			if first.Channels != 1 || !equalF32(first.Pix, v.Pix[:tc.w*tc.h]) {
				t.Fatalf("x/image/tiff reads a different first page")
			}
		})
	}
}

func TestTIFFFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "stack.tif")
	v := randomVolume(6, 4, 3, 255, 9)
	if err := WriteTIFF(p, v, nil); err != nil {
		t.Fatal(err)
	}
	for _, read := range []func(string) (*Volume, error){ReadTIFF, ReadImage} {
		got, err := read(p)
		if err != nil {
			t.Fatal(err)
		}
		if got.Depth != 3 || !equalF32(got.Pix, v.Pix) {
			t.Fatal("file round trip differs")
		}
	}
}

// A write that fails (a value that does not fit, found in the last slice,
// after the first slices were written) leaves the file as it was, and no
// temporary file: WriteTIFF writes atomically. It used to truncate the file
// first and leave the slices before the bad value.
func TestTIFFWriteFailureKeepsFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stack.tif")
	old := randomVolume(300, 200, 3, 255, 9)
	if err := WriteTIFF(p, old, nil); err != nil {
		t.Fatal(err)
	}
	bad := randomVolume(300, 200, 3, 255, 10)
	bad.Pix[len(bad.Pix)-1] = 256
	if err := WriteTIFF(p, bad, nil); err == nil || !strings.Contains(err.Error(), p) {
		t.Fatalf("value 256 in 8 bits: err = %v, want an error naming %s", err, p)
	}
	got, err := ReadTIFF(p)
	if err != nil || !equalF32(got.Pix, old.Pix) {
		t.Fatalf("after the failed write the file is not the old one (err %v)", err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 1 {
		t.Errorf("files left: %v", files)
	}
	if hidden, _ := filepath.Glob(filepath.Join(dir, ".*")); len(hidden) != 0 {
		t.Errorf("temporary files left: %v", hidden)
	}
}

func TestTIFFWriteErrors(t *testing.T) {
	v := NewVolume(2, 2, 1, 1)
	v.Pix[3] = 256
	err := EncodeTIFF(&bytes.Buffer{}, v, nil)
	if err == nil || !strings.Contains(err.Error(), "(1,1,0)") {
		t.Fatalf("value 256 in 8 bits: err = %v", err)
	}
	if err := EncodeTIFF(&bytes.Buffer{}, NewVolume(2, 2, 1, 3), nil); err == nil {
		t.Fatal("colour volume written without error")
	}
	if err := EncodeTIFF(&bytes.Buffer{}, NewVolume(2, 2, 1, 1), &TIFFWriteOptions{Bits: 12}); err == nil {
		t.Fatal("12 bits accepted")
	}
}

// tEntry is one IFD entry for buildTIFF.
type tEntry struct {
	tag, typ uint16
	vals     []uint32
}

// tPage is one page for buildTIFF: its strips, and entries that add to or
// replace the generated ones (width, height, bits, strips...).
type tPage struct {
	w, h, bits, comp, pred, rps int
	strips                      [][]byte
	extra                       []tEntry
}

// buildTIFF lays out a TIFF file by hand so that tests can make compressed,
// predicted and corrupt files that our writer never makes.
func buildTIFF(bo binary.ByteOrder, pages []tPage) []byte {
	var b bytes.Buffer
	if bo == binary.BigEndian {
		b.WriteString("MM")
	} else {
		b.WriteString("II")
	}
	u16 := func(x uint16) { binary.Write(&b, bo, x) }
	u32 := func(x uint32) { binary.Write(&b, bo, x) }
	u16(42)
	u32(0) // patched below
	prevNext := 4
	for _, p := range pages {
		var offs, counts []uint32
		for _, s := range p.strips {
			offs = append(offs, uint32(b.Len()))
			counts = append(counts, uint32(len(s)))
			b.Write(s)
		}
		ents := map[uint16]tEntry{
			256: {256, 4, []uint32{uint32(p.w)}},
			257: {257, 4, []uint32{uint32(p.h)}},
			258: {258, 3, []uint32{uint32(p.bits)}},
			259: {259, 3, []uint32{uint32(p.comp)}},
			262: {262, 3, []uint32{1}},
			273: {273, 4, offs},
			277: {277, 3, []uint32{1}},
			278: {278, 4, []uint32{uint32(p.rps)}},
			279: {279, 4, counts},
			317: {317, 3, []uint32{uint32(max(p.pred, 1))}},
		}
		for _, e := range p.extra {
			if e.vals == nil {
				delete(ents, e.tag)
			} else {
				ents[e.tag] = e
			}
		}
		tags := make([]int, 0, len(ents))
		for tag := range ents {
			tags = append(tags, int(tag))
		}
		sort.Ints(tags)
		// Out-of-line arrays first, then the IFD that points at them.
		where := map[uint16]uint32{}
		for _, tag := range tags {
			e := ents[uint16(tag)]
			if sz := len(e.vals) * int(fieldSize(e.typ)); sz > 4 {
				if b.Len()%2 == 1 {
					b.WriteByte(0)
				}
				where[e.tag] = uint32(b.Len())
				for _, x := range e.vals {
					if e.typ == 3 {
						u16(uint16(x))
					} else {
						u32(x)
					}
				}
			}
		}
		if b.Len()%2 == 1 {
			b.WriteByte(0)
		}
		ifd := b.Len()
		bo.PutUint32(b.Bytes()[prevNext:], uint32(ifd))
		u16(uint16(len(tags)))
		for _, tag := range tags {
			e := ents[uint16(tag)]
			u16(e.tag)
			u16(e.typ)
			u32(uint32(len(e.vals)))
			if off, ok := where[e.tag]; ok {
				u32(off)
				continue
			}
			var field [4]byte
			for i, x := range e.vals {
				switch e.typ {
				case 1:
					field[i] = byte(x)
				case 3:
					bo.PutUint16(field[2*i:], uint16(x))
				default:
					bo.PutUint32(field[:], x)
				}
			}
			b.Write(field[:])
		}
		prevNext = b.Len()
		u32(0)
	}
	return b.Bytes()
}

// lzwLiterals encodes data as a valid TIFF LZW stream made of literal codes
// only (9 bits each, a Clear code every 200 codes so that the decoder's code
// width never grows). It compresses nothing but exercises the decoder.
func lzwLiterals(data []byte) []byte {
	var out []byte
	var acc uint32
	var nbits uint
	emit := func(code uint32) {
		acc = acc<<9 | code
		nbits += 9
		for nbits >= 8 {
			out = append(out, byte(acc>>(nbits-8)))
			nbits -= 8
		}
	}
	for i, c := range data {
		if i%200 == 0 {
			emit(256)
		}
		emit(uint32(c))
	}
	emit(257)
	if nbits > 0 {
		out = append(out, byte(acc<<(8-nbits)))
	}
	return out
}

// packBits encodes data with PackBits, mixing repeat and literal runs.
func packBits(data []byte) []byte {
	var out []byte
	for i := 0; i < len(data); {
		j := i + 1
		for j < len(data) && j-i < 128 && data[j] == data[i] {
			j++
		}
		if j-i >= 2 {
			out = append(out, byte(int8(1-(j-i))), data[i])
			i = j
			continue
		}
		j = i + 1
		for j < len(data) && j-i < 128 && (j+1 >= len(data) || data[j+1] != data[j]) {
			j++
		}
		out = append(out, byte(j-i-1))
		out = append(out, data[i:j]...)
		i = j
	}
	return out
}

func deflate(data []byte) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// rawRows packs v's first slice as 8- or 16-bit rows, with horizontal
// differencing when pred is true.
func rawRows(v *Volume, bits int, bo binary.ByteOrder, pred bool) []byte {
	var out []byte
	for y := range v.Height {
		prev := uint16(0)
		for x := range v.Width {
			s := uint16(v.Pix[y*v.Width+x])
			d := s
			if pred {
				d = s - prev
			}
			prev = s
			if bits == 8 {
				out = append(out, byte(d))
			} else {
				out = append(out, 0, 0)
				bo.PutUint16(out[len(out)-2:], d)
			}
		}
	}
	return out
}

func TestTIFFCompressions(t *testing.T) {
	for _, bits := range []int{8, 16} {
		for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			for _, tc := range []struct {
				name string
				comp int
				pack func([]byte) []byte
			}{
				{"none", compNone, func(b []byte) []byte { return b }},
				{"lzw", compLZW, lzwLiterals},
				{"deflate", compDeflate, deflate},
				{"adobe deflate", compDeflateX, deflate},
				{"packbits", compPackBits, packBits},
			} {
				for _, pred := range []bool{false, true} {
					name := tc.name + "/" + bo.String() + "/" + map[int]string{8: "8bit", 16: "16bit"}[bits] + map[bool]string{true: "/predictor"}[pred]
					t.Run(name, func(t *testing.T) {
						v := randomVolume(13, 7, 1, 1<<bits-1, uint32(bits+tc.comp))
						for i := 20; i < 40; i++ {
							v.Pix[i] = 3 // a run, for PackBits repeats
						}
						raw := rawRows(v, bits, bo, pred)
						rowBytes := 13 * bits / 8
						var strips [][]byte
						for y := 0; y < 7; y += 3 { // 3 rows per strip, last one short
							strips = append(strips, tc.pack(raw[y*rowBytes:min(7, y+3)*rowBytes]))
						}
						data := buildTIFF(bo, []tPage{{w: 13, h: 7, bits: bits, comp: tc.comp, pred: map[bool]int{true: 2}[pred], rps: 3, strips: strips}})
						got, err := DecodeTIFF(bytes.NewReader(data), int64(len(data)), nil)
						if err != nil {
							t.Fatal(err)
						}
						if !equalF32(got.Pix, v.Pix) {
							t.Fatalf("decoded %v\nwant %v", got.Pix[:20], v.Pix[:20])
						}
					})
				}
			}
		}
	}
}

// TestTIFFAgainstXImage decodes files from golang.org/x/image's test data
// (BSD licence, copied to testdata/) and compares with x/image/tiff.
func TestTIFFAgainstXImage(t *testing.T) {
	for _, name := range []string{"video-001-gray.tiff", "video-001-gray-16bit.tiff", "bw-uncompressed.tiff", "bw-packbits.tiff", "bw-deflate.tiff"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", name))
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeTIFF(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			img, err := tiff.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			want := FromImage(img)
			if p, ok := img.(*image.Paletted); ok && len(p.Palette) == 2 { // x/image gives 1-bit as a palette
				want = Luma(want)
			}
			if got.Width != want.Width || got.Height != want.Height || !equalF32(got.Pix, want.Pix) {
				t.Fatalf("differs from x/image/tiff (%dx%d vs %dx%d)", got.Width, got.Height, want.Width, want.Height)
			}
		})
	}
}

func TestTIFFCorrupt(t *testing.T) {
	le := binary.LittleEndian
	good := func(extra ...tEntry) []byte {
		return buildTIFF(le, []tPage{{w: 4, h: 2, bits: 8, comp: 1, rps: 2, strips: [][]byte{make([]byte, 8)}, extra: extra}})
	}
	var written bytes.Buffer
	if err := EncodeTIFF(&written, randomVolume(5, 3, 2, 255, 1), nil); err != nil {
		t.Fatal(err)
	}
	loop := append([]byte(nil), written.Bytes()...)
	// Point the last page's next-IFD field back at the first IFD.
	first := le.Uint32(loop[4:])
	second := le.Uint32(loop[first+2+12*11:])
	le.PutUint32(loop[second+2+12*11:], first)

	twoSizes := buildTIFF(le, []tPage{
		{w: 4, h: 2, bits: 8, comp: 1, rps: 2, strips: [][]byte{make([]byte, 8)}},
		{w: 2, h: 2, bits: 8, comp: 1, rps: 2, strips: [][]byte{make([]byte, 4)}},
	})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "beyond the end"},
		{"bad byte order", []byte("XX*\x00\x08\x00\x00\x00"), "byte order"},
		{"bad magic", []byte("II\x2b\x01\x08\x00\x00\x00"), "magic"},
		{"bigtiff", []byte("II+\x00\x08\x00\x00\x00"), "BigTIFF"},
		{"no pages", []byte("II*\x00\x00\x00\x00\x00"), "no pages"},
		{"IFD beyond end", []byte("II*\x00\xff\x00\x00\x00"), "beyond the end"},
		{"IFD loop", loop, "loop"},
		{"pages of different sizes", twoSizes, "page 1 is 2x2"},
		{"absurd size", good(tEntry{256, 4, []uint32{1 << 30}}, tEntry{257, 4, []uint32{1 << 30}}), "memory budget"},
		{"huge compressed claim", buildTIFF(le, []tPage{{w: 10000, h: 10000, bits: 8, comp: compDeflate, rps: 10000, strips: [][]byte{deflate([]byte{0})}}}), "cannot hold"},
		{"strip truncated", good(tEntry{279, 4, []uint32{5}}), "expected 8"},
		{"strip past end", good(tEntry{273, 4, []uint32{1 << 20}}), "beyond the end"},
		{"12-bit", good(tEntry{258, 3, []uint32{12}}), "bit depth 12"},
		{"rgb", good(tEntry{277, 3, []uint32{3}}), "samples per pixel"},
		{"palette", good(tEntry{262, 3, []uint32{3}}), "photometric"},
		{"float samples", good(tEntry{339, 3, []uint32{3}}), "sample format"},
		{"tiles", good(tEntry{322, 4, []uint32{16}}), "tiled"},
		{"jpeg compression", good(tEntry{259, 3, []uint32{7}}), "compression 7"},
		{"missing width", good(tEntry{256, 0, nil}), "ImageWidth"},
		{"zero width", good(tEntry{256, 4, []uint32{0}}), "image size"},
		{"strip count mismatch", good(tEntry{278, 4, []uint32{1}}), "strip offsets"},
		{"rational width", good(tEntry{256, 5, []uint32{4, 1}}), "field type 5"},
		{"bad deflate data", buildTIFF(le, []tPage{{w: 4, h: 2, bits: 8, comp: compDeflate, rps: 2, strips: [][]byte{[]byte("not zlib")}}}), "deflate"},
		{"short lzw data", buildTIFF(le, []tPage{{w: 4, h: 2, bits: 8, comp: compLZW, rps: 2, strips: [][]byte{lzwLiterals([]byte{1, 2, 3})}}}), "expected 8"},
		{"short packbits data", buildTIFF(le, []tPage{{w: 4, h: 2, bits: 8, comp: compPackBits, rps: 2, strips: [][]byte{{2, 1, 2, 3}}}}), "packbits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeTIFF(bytes.NewReader(tc.data), int64(len(tc.data)), nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want mention of %q", err, tc.want)
			}
		})
	}
	// Every truncation of a valid file is an error, never a panic.
	full := written.Bytes()
	for n := range len(full) {
		if _, err := DecodeTIFF(bytes.NewReader(full[:n]), int64(n), nil); err == nil {
			t.Fatalf("file cut to %d of %d bytes decoded without error", n, len(full))
		}
	}
}

// FuzzDecodeTIFF checks that no input panics and that every accepted input
// gives a consistent volume. MaxSamples is small so that the fuzzer cannot
// spend its time allocating.
func FuzzDecodeTIFF(f *testing.F) {
	for _, opt := range []TIFFWriteOptions{{Bits: 8}, {Bits: 16, BigEndian: true, RowsPerStrip: 2}} {
		var b bytes.Buffer
		if err := EncodeTIFF(&b, randomVolume(3, 4, 2, 255, 3), &opt); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	raw := []byte{1, 2, 3, 3, 3, 3, 4, 5}
	for _, c := range []struct {
		comp int
		data []byte
	}{{compLZW, lzwLiterals(raw)}, {compDeflate, deflate(raw)}, {compPackBits, packBits(raw)}} {
		f.Add(buildTIFF(binary.LittleEndian, []tPage{{w: 4, h: 2, bits: 8, comp: c.comp, pred: 2, rps: 1,
			strips: [][]byte{c.data[:len(c.data)/2], c.data[len(c.data)/2:]}}}))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := DecodeTIFF(bytes.NewReader(data), int64(len(data)), &TIFFOptions{MaxSamples: 1 << 20})
		if err != nil {
			return
		}
		if err := v.Check(); err != nil || v.Channels != 1 {
			t.Fatalf("accepted file gives an inconsistent volume: %v", err)
		}
	})
}

// EncodeTIFFSamples writes a volume given by a function (a mask from its
// labels) that DecodeTIFF reads back; bad samples and sizes are errors.
func TestEncodeTIFFSamples(t *testing.T) {
	const w, h, d = 6, 5, 3
	labels := randomVolume(w, h, d, 2, 7)
	values := []float32{0, 255, 1000}
	var buf bytes.Buffer
	err := EncodeTIFFSamples(&buf, w, h, d, func(i int) float32 { return values[int(labels.Pix[i])] }, &TIFFWriteOptions{Bits: 16})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeTIFF(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range got.Pix {
		if p != values[int(labels.Pix[i])] {
			t.Fatalf("voxel %d: %v, want %v", i, p, values[int(labels.Pix[i])])
		}
	}
	if got.Width != w || got.Height != h || got.Depth != d {
		t.Fatalf("%dx%dx%d, want %dx%dx%d", got.Width, got.Height, got.Depth, w, h, d)
	}
	// 1000 does not fit in 8 bits: the error names the first such voxel,
	// before a byte is written.
	buf.Reset()
	err = EncodeTIFFSamples(&buf, w, h, d, func(i int) float32 { return values[int(labels.Pix[i])] }, nil)
	first := -1
	for i, l := range labels.Pix {
		if l == 2 {
			first = i
			break
		}
	}
	want := fmt.Sprintf("voxel (%d,%d,%d) is 1000", first%w, first/w%h, first/(w*h))
	if err == nil || !strings.Contains(err.Error(), want) || buf.Len() != 0 {
		t.Errorf("8-bit write of 1000: %v (%d bytes written), want an error with %q", err, buf.Len(), want)
	}
	if err := EncodeTIFFSamples(&buf, w, 0, d, func(int) float32 { return 0 }, nil); err == nil {
		t.Error("a volume of height 0 was written")
	}
}
