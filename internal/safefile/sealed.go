package safefile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
)

// A sealed file is sealMagic, the payload, and the SHA-256 of the payload.
const sealMagic = "PSUBSUM1"

// ErrNotSealed is wrapped by OpenSealed's error for a file that does not
// start like a sealed file (written by other code, or damaged there).
var ErrNotSealed = errors.New("no checksum header")

// ErrChecksum is wrapped by the error of a sealed file whose checksum does
// not match its content: it was damaged after it was written.
var ErrChecksum = errors.New("checksum mismatch: the file was damaged after it was written")

// WriteSealed is Write with a checksum: the file holds a header, what
// write wrote, and the SHA-256 of it. Read it back with OpenSealed or
// ReadSealed.
func WriteSealed(path string, write func(w io.Writer) error) error {
	return writeFile(path, write, true)
}

// SealedReader reads the payload of a sealed file while hashing it.
// Verify (or Close) compares the hash with the stored one: a caller must
// not use what it decoded before Verify returned nil.
type SealedReader struct {
	f    *os.File
	path string
	r    io.Reader // the payload, limited
	h    hash.Hash
	sum  []byte
}

// OpenSealed opens a file written by WriteSealed. The error wraps
// fs.ErrNotExist when there is no file and ErrNotSealed when the file has
// no header.
func OpenSealed(path string) (*SealedReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	size := st.Size() - int64(len(sealMagic)) - sha256.Size
	head := make([]byte, len(sealMagic))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sealMagic || size < 0 {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrNotSealed)
	}
	h := sha256.New()
	return &SealedReader{f: f, path: path, h: h, r: io.TeeReader(io.LimitReader(f, size), h)}, nil
}

// Read reads the payload.
func (s *SealedReader) Read(p []byte) (int, error) { return s.r.Read(p) }

// Verify reads what is left of the payload and checks the checksum. The
// error wraps ErrChecksum on a mismatch.
func (s *SealedReader) Verify() error {
	if s.sum != nil {
		return nil
	}
	if _, err := io.Copy(io.Discard, s.r); err != nil {
		return fmt.Errorf("%s: %w", s.path, err)
	}
	want := make([]byte, sha256.Size)
	if _, err := io.ReadFull(s.f, want); err != nil {
		return fmt.Errorf("%s: %w", s.path, ErrChecksum)
	}
	if got := s.h.Sum(nil); !bytes.Equal(got, want) {
		return fmt.Errorf("%s: %w", s.path, ErrChecksum)
	}
	s.sum = want
	return nil
}

// Close closes the file. It does not verify.
func (s *SealedReader) Close() error { return s.f.Close() }

// ReadSealed reads and verifies a whole sealed file.
func ReadSealed(path string) ([]byte, error) {
	s, err := OpenSealed(path)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	b, err := io.ReadAll(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Verify(); err != nil {
		return nil, err
	}
	return b, nil
}
