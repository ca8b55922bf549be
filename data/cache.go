package data

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub/imageio"
)

// segmentCacheVersion is part of every key and every file header: bump it
// whenever the file format changes, so old entries are never read back.
// Changes of what the builders compute (SLIC, descriptors, loaders) need no
// bump: the hash of their code is part of the key (BuilderSource).
const segmentCacheVersion = 1

const segmentCacheMagic = "PSUBSEG\x00"

// SegmentCache stores built SegmentedImages on disk so that re-running a
// notebook does not recompute superpixels.
//
// Key. An entry's key is the sha256 of: the format version, the hash of the
// builders' code (BuilderSource: the code the data sets' builders reach —
// loaders, SLIC, descriptors, the cache's own reading and writing —
// comments and layout aside, so that an entry built by other code is
// never read back; other changes of psub or data leave the cache valid),
// the source's Name and Transform, every SLIC option (except
// Workers, which does not change the result), the descriptor's Name, the
// class count, and the sha256 of the bytes of every input file. Hashing the
// bytes (not the size and modification time) costs a read of the inputs on
// every run (about 13 MB for the cows, 100 MB for an EM volume) but can
// neither miss a changed file nor be fooled by a copy or a touch. Entries
// of older code stay on disk until the folder is deleted.
//
// Content. An entry holds the region map, the class mask, the edges and the
// unary features (sparse rows, exact float64 bits). The pairwise features,
// majority labels and oracle are recomputed from them on reading (cheap, and
// deterministic, so the instance is identical to a fresh build).
//
// Writes are atomic and sealed (safefile.WriteSealed): an entry is
// written to a temporary file in Dir with a SHA-256 of its content and
// renamed into place, so a reader sees a whole entry or none, and an entry
// damaged on disk later (a flipped bit) fails its checksum. An entry that
// fails it, or cannot be decoded, is a miss and is rewritten. Temporary
// files of killed writers are removed by the next Put (once they are a
// minute old).
type SegmentCache struct {
	Dir string
	// Source, when set, replaces BuilderSource() in keys (tests simulate a
	// change of the builders' code with it).
	Source string

	cleaned atomic.Bool // orphaned temporary files removed by this process
}

// DefaultSegmentCache is the cache under out/cache/segment of the module
// root (see OutDir).
func DefaultSegmentCache() *SegmentCache {
	return &SegmentCache{Dir: filepath.Join(OutDir(), "cache", "segment")}
}

// builderRoots are the entry points of the code the segment cache's
// entries depend on: the data sets' builders (their loaders, SLIC and
// descriptors), BuildSegmented (which reads and writes entries) and the
// descriptors. A new function of data/ that builds segmentation sources
// must be reached from them (a test checks).
func builderRoots() []string {
	return []string{codever.FuncDecl(BuildCows), codever.FuncDecl(BuildHorses), codever.FuncDecl(BuildMito),
		codever.FuncDecl(BuildSegmented), codever.FuncDecl(CowDescriptor), codever.FuncDecl(RetinaDescriptor), codever.FuncDecl(EMDescriptor)}
}

// BuilderSource is the version of the code the segment cache's entries
// depend on: the Source of codever.CodeOf(builderRoots()), what the builders
// reach, so that a change of the learner, of a protocol or of a comment
// keeps the built graphs. It is computed once per process; "" with an
// error when the module's source is not found.
func BuilderSource() (string, error) {
	builderOnce.Do(func() {
		v, err := codever.CodeOf(builderRoots(), nil)
		builderSum, builderErr = v.Source, err
	})
	return builderSum, builderErr
}

// The builders reach BuilderSource (through the cache's keys), so its value
// is computed on first use rather than by a package-level initialiser (an
// initialisation cycle) or an init function (which code versions would
// count in every protocol that reads the package's variables).
var (
	builderOnce sync.Once
	builderSum  string
	builderErr  error
)

// Key returns the cache key of src built with b (see SegmentCache). It reads
// every file of src.Files. The key is "" when the builders' source is not
// found (a binary run away from the module's source): such an entry cannot
// be told from one of other code, so Get misses and Put stores nothing.
func (c *SegmentCache) Key(src SegmentSource, b SegmentBuilder) (string, error) {
	code := c.Source
	if code == "" {
		var err error
		if code, err = BuilderSource(); err != nil {
			return "", nil
		}
	}
	h := sha256.New()
	opt := b.SLIC
	opt.Workers = 0
	fmt.Fprintf(h, "psub segment cache v%d\nbuilder source %s\nname %q\ntransform %q\nslic %+v\ndescriptor %q\nclasses %d\n",
		segmentCacheVersion, code, src.Name, src.Transform, opt, b.Descriptor.Name, b.classes())
	if len(src.Files) == 0 {
		return "", fmt.Errorf("%s: no input files to key the cache on", src.Name)
	}
	for _, f := range src.Files {
		sum, err := FileSHA256(f)
		if err != nil {
			return "", fmt.Errorf("%s: cache key: %w", src.Name, err)
		}
		fmt.Fprintf(h, "file %s\n", sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (c *SegmentCache) path(key string) string { return filepath.Join(c.Dir, key+".seg") }

// Get returns the entry of key rebuilt with b, or nil (and no error) when
// there is none or it cannot be decoded.
func (c *SegmentCache) Get(key string, b SegmentBuilder) (*SegmentedImage, error) {
	if key == "" {
		return nil, nil
	}
	f, err := safefile.OpenSealed(c.path(key))
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, safefile.ErrNotSealed):
		return nil, nil // no entry, or one without a checksum: a miss
	case err != nil:
		return nil, err
	}
	defer f.Close()
	e, err := readSegEntry(bufio.NewReaderSize(f, 1<<16))
	if err != nil || f.Verify() != nil {
		return nil, nil // a damaged entry is a miss; Put replaces it
	}
	b.KeepImage = false
	s, err := b.assemble(e.name, nil, e.truth, e.regions, e.edges, e.unary)
	if err != nil {
		return nil, nil
	}
	return s, nil
}

// Put stores s under key, atomically and sealed ("" stores nothing, see
// Key).
func (c *SegmentCache) Put(key string, s *SegmentedImage) error {
	if key == "" {
		return nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("segment cache: %w", err)
	}
	if !c.cleaned.Swap(true) {
		// Once per process: the temporary files of killed writers, named
		// KEY.*.tmp before safefile and .KEY.seg.*.tmp since.
		safefile.CleanTempsMatching(c.Dir, func(name string) bool { return strings.HasSuffix(name, ".tmp") })
	}
	err := safefile.WriteSealed(c.path(key), func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		if err := writeSegEntry(bw, s); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("segment cache: %s: %w", s.Instance.Name, err)
	}
	return nil
}

type segEntry struct {
	name           string
	regions, truth *imageio.LabelMap
	edges          [][2]int
	unary          [][]float64
}

// The entry format: magic, version, name, region map (RLE), class mask
// (RLE), edges (as deltas), unary rows (sparse: column deltas and float64
// bits). All integers are varints.
func writeSegEntry(w *bufio.Writer, s *SegmentedImage) error {
	var buf [binary.MaxVarintLen64]byte
	uv := func(x uint64) { w.Write(buf[:binary.PutUvarint(buf[:], x)]) }
	sv := func(x int64) { w.Write(buf[:binary.PutVarint(buf[:], x)]) }
	w.WriteString(segmentCacheMagic)
	uv(segmentCacheVersion)
	uv(uint64(len(s.Instance.Name)))
	w.WriteString(s.Instance.Name)
	for _, m := range []*imageio.LabelMap{s.Regions, s.Truth} {
		uv(uint64(m.Width))
		uv(uint64(m.Height))
		uv(uint64(m.Depth))
		for i := 0; i < len(m.Labels); {
			j := i + 1
			for j < len(m.Labels) && m.Labels[j] == m.Labels[i] {
				j++
			}
			sv(int64(m.Labels[i]))
			uv(uint64(j - i))
			i = j
		}
	}
	uv(uint64(len(s.Instance.Edges)))
	prev := 0
	for _, e := range s.Instance.Edges {
		sv(int64(e[0] - prev))
		uv(uint64(e[1] - e[0]))
		prev = e[0]
	}
	uv(uint64(len(s.Instance.Unary)))
	uv(uint64(s.Instance.UnaryDim()))
	var fb [8]byte
	for _, row := range s.Instance.Unary {
		nnz := 0
		for _, v := range row {
			if v != 0 {
				nnz++
			}
		}
		uv(uint64(nnz))
		last := 0
		for j, v := range row {
			if v != 0 {
				uv(uint64(j - last))
				last = j
				binary.LittleEndian.PutUint64(fb[:], math.Float64bits(v))
				w.Write(fb[:])
			}
		}
	}
	return nil
}

// maxSegCount bounds every count read from an entry, and maxSegVoxels the
// voxels of a map and the values of the unary matrix, so a damaged file
// cannot make the reader allocate without limit. A whole EM volume has
// 1.3e8 voxels and 1.4e7 unary values.
const (
	maxSegCount  = 1 << 31
	maxSegVoxels = 1 << 28
)

func readSegEntry(r *bufio.Reader) (*segEntry, error) {
	var err error
	uv := func() uint64 {
		if err != nil {
			return 0
		}
		var x uint64
		x, err = binary.ReadUvarint(r)
		if err == nil && x > maxSegCount {
			err = fmt.Errorf("count %d too large", x)
		}
		return x
	}
	sv := func() int64 {
		if err != nil {
			return 0
		}
		var x int64
		x, err = binary.ReadVarint(r)
		return x
	}
	magic := make([]byte, len(segmentCacheMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != segmentCacheMagic {
		return nil, fmt.Errorf("not a segment cache entry")
	}
	if v := uv(); err != nil || v != segmentCacheVersion {
		return nil, fmt.Errorf("cache version %d, expected %d", v, segmentCacheVersion)
	}
	nameLen := uv()
	if err != nil {
		return nil, err
	}
	if nameLen > 1<<16 {
		return nil, fmt.Errorf("name of %d bytes", nameLen)
	}
	name := make([]byte, nameLen)
	if _, err := io.ReadFull(r, name); err != nil {
		return nil, err
	}
	e := &segEntry{name: string(name)}
	var maps [2]*imageio.LabelMap
	for k := range maps {
		w, h, d := int(uv()), int(uv()), int(uv())
		if err != nil {
			return nil, err
		}
		if w <= 0 || h <= 0 || d <= 0 || w > maxSegVoxels || h > maxSegVoxels || d > maxSegVoxels ||
			uint64(w)*uint64(h) > maxSegVoxels || uint64(w)*uint64(h)*uint64(d) > maxSegVoxels {
			return nil, fmt.Errorf("bad size %d×%d×%d", w, h, d)
		}
		m := imageio.NewLabelMap(w, h, d)
		for i := 0; i < len(m.Labels); {
			v, n := sv(), int(uv())
			if err != nil {
				return nil, err
			}
			if n <= 0 || i+n > len(m.Labels) || v != int64(int32(v)) {
				return nil, fmt.Errorf("bad run")
			}
			for j := i; j < i+n; j++ {
				m.Labels[j] = int32(v)
			}
			i += n
		}
		maps[k] = m
	}
	e.regions, e.truth = maps[0], maps[1]
	ne := int(uv())
	if err != nil {
		return nil, err
	}
	e.edges = make([][2]int, 0, min(ne, 1<<20))
	prev := 0
	for range ne {
		a := prev + int(sv())
		b := a + int(uv())
		if err != nil {
			return nil, err
		}
		e.edges = append(e.edges, [2]int{a, b})
		prev = a
	}
	if err != nil {
		return nil, err
	}
	n, dim := int(uv()), int(uv())
	if err != nil {
		return nil, err
	}
	if n > len(e.regions.Labels) || dim > 1<<20 || n*dim > maxSegVoxels {
		return nil, fmt.Errorf("bad unary shape %d×%d", n, dim)
	}
	flat := make([]float64, n*dim)
	e.unary = make([][]float64, n)
	var fb [8]byte
	for k := range n {
		row := flat[k*dim : (k+1)*dim : (k+1)*dim]
		nnz := int(uv())
		j := 0
		for range nnz {
			j += int(uv())
			if err != nil {
				return nil, err
			}
			if j >= dim {
				return nil, fmt.Errorf("node %d: column %d out of range", k, j)
			}
			if _, err := io.ReadFull(r, fb[:]); err != nil {
				return nil, err
			}
			row[j] = math.Float64frombits(binary.LittleEndian.Uint64(fb[:]))
		}
		e.unary[k] = row
	}
	if err != nil {
		return nil, err
	}
	for i, ed := range e.edges {
		if ed[0] < 0 || ed[0] >= ed[1] || ed[1] >= n {
			return nil, fmt.Errorf("edge %d (%d,%d) out of range for %d nodes", i, ed[0], ed[1], n)
		}
	}
	for i, r := range e.regions.Labels {
		if r < 0 || int(r) >= n {
			return nil, fmt.Errorf("voxel %d: region %d out of range for %d nodes", i, r, n)
		}
	}
	return e, nil
}
