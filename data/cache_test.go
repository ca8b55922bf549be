package data

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/codever"
	"github.com/probably-submodular/crf/internal/modroot"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub/imageio"
)

// cacheSources are synthetic sources whose Files exist (the key hashes
// them) and whose loads are counted (a hit does not load).
func cacheSources(t *testing.T, n int, loads *atomic.Int64) []SegmentSource {
	dir := t.TempDir()
	var out []SegmentSource
	for i := range n {
		f := filepath.Join(dir, string(rune('a'+i))+".raw")
		writeFile(t, f, strings.Repeat("x", i+1))
		out = append(out, SegmentSource{
			Name: "img-" + string(rune('a'+i)), Files: []string{f}, Transform: "none",
			Load: func() (*imageio.Volume, *imageio.LabelMap, error) {
				loads.Add(1)
				v, m := blobImage(uint64(i), 36+2*i, 30)
				return v, m, nil
			},
		})
	}
	return out
}

func sameSegmented(t *testing.T, a, b []*SegmentedImage) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d vs %d items", len(a), len(b))
	}
	for i := range a {
		if !reflect.DeepEqual(a[i].Instance, b[i].Instance) {
			t.Fatalf("item %d (%s): instances differ", i, a[i].Instance.Name)
		}
		if !reflect.DeepEqual(a[i].Regions, b[i].Regions) || !reflect.DeepEqual(a[i].Truth, b[i].Truth) || !reflect.DeepEqual(a[i].Oracle, b[i].Oracle) {
			t.Fatalf("item %d (%s): region map, mask or oracle differ", i, a[i].Instance.Name)
		}
	}
}

func TestSegmentCacheHitMiss(t *testing.T) {
	var loads atomic.Int64
	src := cacheSources(t, 4, &loads)
	cache := &SegmentCache{Dir: filepath.Join(t.TempDir(), "cache")}
	b := testBuilder(12)
	first, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if loads.Load() != 4 {
		t.Fatalf("first build loaded %d sources, expected 4", loads.Load())
	}
	ents, _ := os.ReadDir(cache.Dir)
	if len(ents) != 4 {
		t.Fatalf("%d cache files, expected 4 (no temporary files left)", len(ents))
	}
	second, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	if loads.Load() != 4 {
		t.Fatalf("cached build loaded %d sources, expected none", loads.Load()-4)
	}
	sameSegmented(t, first, second)

	// Each change of what the key covers is a miss.
	for _, tc := range []struct {
		name   string
		change func(src []SegmentSource, b *SegmentBuilder)
	}{
		{"segments", func(_ []SegmentSource, b *SegmentBuilder) { b.SLIC.Segments = 13 }},
		{"compactness", func(_ []SegmentSource, b *SegmentBuilder) { b.SLIC.Compactness = 10 }},
		{"descriptor", func(_ []SegmentSource, b *SegmentBuilder) { b.Descriptor.Name += "-v2" }},
		{"transform", func(src []SegmentSource, _ *SegmentBuilder) { src[0].Transform = "downscale 2" }},
		{"name", func(src []SegmentSource, _ *SegmentBuilder) { src[0].Name = "renamed" }},
		{"file bytes", func(src []SegmentSource, _ *SegmentBuilder) { writeFile(t, src[0].Files[0], "changed") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s2 := append([]SegmentSource{}, src...)
			b2 := b
			k0, err := cache.Key(s2[0], b2)
			if err != nil {
				t.Fatal(err)
			}
			tc.change(s2, &b2)
			k1, err := cache.Key(s2[0], b2)
			if err != nil {
				t.Fatal(err)
			}
			if k0 == k1 {
				t.Fatal("key unchanged")
			}
			before := loads.Load()
			if _, err := BuildSegmented(s2[:1], b2, BuildOptions{Cache: cache}); err != nil {
				t.Fatal(err)
			}
			if loads.Load() != before+1 {
				t.Fatal("changed build was served from the cache")
			}
		})
	}
	// Workers does not change the result, so it does not change the key.
	b3 := b
	b3.SLIC.Workers = 5
	k0, _ := cache.Key(src[1], b)
	k1, _ := cache.Key(src[1], b3)
	if k0 != k1 {
		t.Error("SLIC.Workers changed the key")
	}
}

func TestSegmentCacheDamagedEntry(t *testing.T) {
	var loads atomic.Int64
	src := cacheSources(t, 1, &loads)
	cache := &SegmentCache{Dir: t.TempDir()}
	b := testBuilder(10)
	first, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := cache.Key(src[0], b)
	raw, err := os.ReadFile(cache.path(key))
	if err != nil {
		t.Fatal(err)
	}
	// The entry as the code before checksums wrote it, and with another
	// version, both sealed: a miss.
	payload := raw[8 : len(raw)-32]
	wrongVersion := filepath.Join(t.TempDir(), "v")
	safefile.WriteSealed(wrongVersion, func(w io.Writer) error {
		_, err := w.Write(append(append([]byte(segmentCacheMagic), segmentCacheVersion+1), payload[len(segmentCacheMagic)+1:]...))
		return err
	})
	wrongRaw, _ := os.ReadFile(wrongVersion)
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"truncated", raw[:len(raw)/2]},
		{"empty", nil},
		{"wrong version", wrongRaw},
		{"unsealed (older code)", payload},
		{"not an entry", []byte("hello")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(cache.path(key), tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			if s, err := cache.Get(key, b); s != nil || err != nil {
				t.Fatalf("Get = %v, %v; expected a miss", s != nil, err)
			}
			before := loads.Load()
			again, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
			if err != nil {
				t.Fatal(err)
			}
			if loads.Load() != before+1 {
				t.Fatal("damaged entry was not rebuilt")
			}
			sameSegmented(t, first, again)
			if s, _ := cache.Get(key, b); s == nil {
				t.Fatal("rebuilt entry was not stored")
			}
		})
	}
}

// Bits flipped in a stored entry (issue 32: 21 of 40 single flips changed
// the exported features, a histogram bin 0.1192 became 2.14e+307, and the
// entry stayed): every flip is a miss, the entry is rebuilt identical to a
// fresh build and stored again.
func TestSegmentCacheBitFlips(t *testing.T) {
	var loads atomic.Int64
	src := cacheSources(t, 1, &loads)
	cache := &SegmentCache{Dir: t.TempDir()}
	b := testBuilder(10)
	first, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := cache.Key(src[0], b)
	good, err := os.ReadFile(cache.path(key))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(32, 3))
	for k := range 40 {
		bit := rng.IntN(8 * len(good))
		bad := bytes.Clone(good)
		bad[bit/8] ^= 1 << (bit % 8)
		os.WriteFile(cache.path(key), bad, 0o644)
		if s, err := cache.Get(key, b); s != nil || err != nil {
			t.Fatalf("flip %d (bit %d of %d): Get = %v, %v; want a miss", k, bit, 8*len(good), s != nil, err)
		}
		before := loads.Load()
		again, err := BuildSegmented(src, b, BuildOptions{Cache: cache})
		if err != nil || loads.Load() != before+1 {
			t.Fatalf("flip %d: not rebuilt (%v)", k, err)
		}
		sameSegmented(t, first, again)
		if now, _ := os.ReadFile(cache.path(key)); !bytes.Equal(now, good) {
			t.Fatalf("flip %d: the rebuilt entry differs from the first", k)
		}
	}
}

// Temporary files of killed cache writers, of both namings, are removed by
// the next Put once old; fresh ones (a live writer) are kept.
func TestSegmentCacheOrphans(t *testing.T) {
	var loads atomic.Int64
	src := cacheSources(t, 2, &loads)
	cache := &SegmentCache{Dir: t.TempDir()}
	old := time.Now().Add(-time.Hour)
	var orphans []string
	for _, name := range []string{"abc.123.tmp", ".abc.seg.456.tmp"} {
		p := filepath.Join(cache.Dir, name)
		writeFile(t, p, "half an entry")
		os.Chtimes(p, old, old)
		orphans = append(orphans, p)
	}
	fresh := filepath.Join(cache.Dir, ".def.seg.789.tmp")
	writeFile(t, fresh, "a live writer's entry")
	if _, err := BuildSegmented(src, testBuilder(10), BuildOptions{Cache: cache}); err != nil {
		t.Fatal(err)
	}
	for _, p := range orphans {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("orphan %s kept", p)
		}
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("a fresh temporary file was removed: %v", err)
	}
}

// The entry format round-trips the exact float64 bits, negative and large
// labels, and 3-D maps.
func TestSegEntryRoundTrip(t *testing.T) {
	regions := imageio.NewLabelMap(3, 2, 2)
	copy(regions.Labels, []int32{0, 0, 1, 1, 2, 2, 2, 2, 0, 1, 1, 1})
	truth := imageio.NewLabelMap(3, 2, 2)
	copy(truth.Labels, []int32{0, 1, 1, 0, -3, 70000, 0, 0, 1, 1, 1, 1})
	s := &SegmentedImage{Regions: regions, Truth: truth}
	s.Instance.Name = "é/x"
	s.Instance.Edges = [][2]int{{0, 1}, {0, 2}, {1, 2}}
	s.Instance.Unary = [][]float64{{0, 1.0 / 3, 0, 2.0 / 3}, {0, 0, 0, 0}, {1e-300, -0.5, 0, 7}}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	if err := writeSegEntry(w, s); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	e, err := readSegEntry(bufio.NewReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if e.name != s.Instance.Name || !reflect.DeepEqual(e.regions, regions) || !reflect.DeepEqual(e.truth, truth) ||
		!reflect.DeepEqual(e.edges, s.Instance.Edges) || !reflect.DeepEqual(e.unary, s.Instance.Unary) {
		t.Fatalf("round trip differs: %+v", e)
	}
}

func FuzzReadSegEntry(f *testing.F) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	regions := imageio.NewLabelMap(2, 2, 1)
	copy(regions.Labels, []int32{0, 0, 1, 1})
	s := &SegmentedImage{Regions: regions, Truth: imageio.NewLabelMap(2, 2, 1)}
	s.Instance.Edges = [][2]int{{0, 1}}
	s.Instance.Unary = [][]float64{{1, 0}, {0, 1}}
	writeSegEntry(w, s)
	w.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte(segmentCacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		readSegEntry(bufio.NewReader(bytes.NewReader(data))) // must not panic or hang
	})
}

// The real cows through the default builder: a cached rebuild is identical.
func TestCowsCache(t *testing.T) {
	needDataSet(t, CowsDir)
	cache := &SegmentCache{Dir: t.TempDir()}
	opt := ImageSetOptions{Limit: 2, Cache: cache}
	first, err := BuildCows(opt)
	if err != nil {
		t.Fatal(err)
	}
	second, err := BuildCows(opt)
	if err != nil {
		t.Fatal(err)
	}
	sameSegmented(t, first.Items, second.Items)
	if first.Description != second.Description {
		t.Error("descriptions differ")
	}
	opt.Segments = 300
	third, err := BuildCows(opt)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(third.Items[0].Regions, first.Items[0].Regions) {
		t.Error("a different superpixel count was served from the cache")
	}
	ents, _ := os.ReadDir(cache.Dir)
	if len(ents) != 4 {
		t.Errorf("%d cache entries, expected 4 (2 images × 2 settings)", len(ents))
	}
}

// TestSegmentCacheBuilderSource: an entry built by other builder code (a
// change of SLIC, a descriptor, a loader) is a miss, not a stale hit.
func TestSegmentCacheBuilderSource(t *testing.T) {
	var loads atomic.Int64
	src := cacheSources(t, 1, &loads)
	dir := filepath.Join(t.TempDir(), "cache")
	b := testBuilder(12)
	build := func(source string) {
		t.Helper()
		if _, err := BuildSegmented(src, b, BuildOptions{Cache: &SegmentCache{Dir: dir, Source: source}}); err != nil {
			t.Fatal(err)
		}
	}
	build("code-a")
	build("code-a")
	if loads.Load() != 1 {
		t.Fatalf("same builder source: %d loads, want 1 (a hit)", loads.Load())
	}
	build("code-b")
	if loads.Load() != 2 {
		t.Fatalf("other builder source: %d loads, want 2 (a miss)", loads.Load())
	}
	build("code-a")
	if loads.Load() != 2 {
		t.Fatal("the first builder's entry was lost")
	}
	// Without an override the key carries the hash of this checkout's
	// builder source.
	if _, err := BuilderSource(); err != nil {
		t.Fatalf("builder source of the checkout: %v", err)
	}
	k, err := (&SegmentCache{Dir: dir}).Key(src[0], b)
	if err != nil || k == "" {
		t.Fatalf("key %q, %v", k, err)
	}
}

// TestBuilderSourceListed: every function of data/ that builds
// segmentation sources (makes a SegmentSource, SegmentBuilder, Descriptor
// or imageSet, or calls BuildSegmented or buildImageSet) is part of the
// segment cache's key (reached from builderRoots), and what only the
// learner, a protocol or the multi-label problems use is not.
func TestBuilderSourceListed(t *testing.T) {
	root, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	decls, err := codever.CodeDecls(builderRoots(), nil)
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, d := range decls {
		reached[d] = true
	}
	files, _ := filepath.Glob(filepath.Join(root, "data", "*.go"))
	fset := token.NewFileSet()
	builders := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			builds := false
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if id, ok := n.Type.(*ast.Ident); ok && slices.Contains([]string{"SegmentSource", "SegmentBuilder", "Descriptor", "imageSet"}, id.Name) {
						builds = true
					}
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && (id.Name == "BuildSegmented" || id.Name == "buildImageSet") {
						builds = true
					}
				}
				return !builds
			})
			if !builds {
				continue
			}
			builders++
			name := fd.Name.Name
			if fd.Recv != nil {
				// A method is reached as data.Type.Method.
				recv := fd.Recv.List[0].Type
				if st, ok := recv.(*ast.StarExpr); ok {
					recv = st.X
				}
				id, ok := recv.(*ast.Ident)
				if !ok {
					t.Errorf("%s: method %s builds segmentation sources on a receiver this test cannot name", filepath.Base(f), name)
					continue
				}
				name = id.Name + "." + name
			}
			if !reached["data."+name] {
				t.Errorf("%s: %s builds segmentation sources but is not reached from builderRoots: the segment cache would not see its changes", filepath.Base(f), name)
			}
		}
	}
	if builders < 5 {
		t.Errorf("found %d functions that build segmentation sources; the scan is broken", builders)
	}
	for _, d := range []string{"psub.Train", "data.BuildMultiLabel", "notebooks/cows.Experiment.Run", "data.SyntheticSegmentation"} {
		if reached[d] {
			t.Errorf("the segment cache's key depends on %s, which builds no segmentation source", d)
		}
	}
}
