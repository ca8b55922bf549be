package data

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pngChunk is one PNG chunk with its CRC.
func pngChunk(typ string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(typ)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	return b.Bytes()
}

// TestPalettedMaskHeaderChecked: an index mask is read through its
// palette; a paletted PNG of under 100 bytes declaring 60000×60000 is
// refused from its header, not decoded into 3.6 GB.
func TestPalettedMaskHeaderChecked(t *testing.T) {
	var ihdr bytes.Buffer
	binary.Write(&ihdr, binary.BigEndian, [2]uint32{60000, 60000})
	ihdr.Write([]byte{8, 3, 0, 0, 0}) // 8-bit paletted
	var f bytes.Buffer
	f.WriteString("\x89PNG\r\n\x1a\n")
	f.Write(pngChunk("IHDR", ihdr.Bytes()))
	f.Write(pngChunk("PLTE", []byte{0, 0, 0, 255, 255, 255}))
	f.Write(pngChunk("IDAT", []byte{0x78, 0x9c, 0x63, 0, 0, 0, 1, 0, 1}))
	f.Write(pngChunk("IEND", nil))
	p := filepath.Join(t.TempDir(), "m.png")
	if err := os.WriteFile(p, f.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := MaskFormat{Classes: 3}.ReadMask(p)
	if err == nil || !strings.Contains(err.Error(), "60000x60000") {
		t.Fatalf("err = %v, want the declared size refused", err)
	}
}

// TestLoadSegmenterDevice: a segmenter path that is a device is read
// bounded (membudget.ReadFile), not until memory runs out.
func TestLoadSegmenterDevice(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	if _, err := LoadSegmenter("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("err = %v, want a bounded refusal", err)
	}
}
