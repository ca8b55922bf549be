// # Segmentation problems (notebooks/TARGETS.md §1, §2, §4)
//
// (This part of the package comment covers segment*.go, pipeline.go,
// masks.go, cows.go, horses.go, mito.go and cache.go.) A binary segmentation data set becomes CRF instances in five steps, the
// same for 2-D images and 3-D volumes:
//
//	image (or volume) + class mask
//	  → SLIC regions (superpixels / supervoxels, psub/slic)
//	  → region adjacency graph (feature.Adjacency: the CRF's edges)
//	  → unary descriptors φ_u per region (a Descriptor)
//	  → pairwise features φ_p(k, l) = |φ_u(k) − φ_u(l)| per edge
//	  → psub.Instance, labels by majority vote of the mask in each region.
//
// SegmentBuilder.Build does this for one image; BuildSegmented for many, in
// parallel on all cores, with a progress callback and an optional on-disk
// SegmentCache. The result, a SegmentedImage, keeps beside the instance what
// pixel-level evaluation needs: the region map (to paint region labels back
// on pixels), the pixel class mask and the oracle (the best any labelling of
// these regions can score). SegmentedImage.Score gives the pixel confusion of
// a prediction, from which IoU and VOC are read.
//
// A Pipeline (pipeline.go) holds these steps' settings as data: a named
// feature Recipe, the SLIC options, a MaskFormat (masks.go: binary in any
// two values or polarity, index masks of K classes, ignored values) and a
// downscale; Pair matches images with masks by name. A model file carries
// it, so that "psub segment" applies to new images what it trained with.
// The paper's three data sets are Presets of it (folder layout, pipeline,
// README facts) with their own entry points and options for reduced
// builds: BuildCows (TU Darmstadt cows), BuildHorses (Weizmann horses, the
// stand-in for the UCSB retina set) and BuildMito (EPFL mitochondria). A reduced build (fewer
// images, a downscale, a crop) says so in SegmentedSet.Description, which
// notebooks print so that every result states which data it ran on.
//
// SegmentCache keys an entry by the sha256 of the input files' bytes and of
// every builder parameter, under out/cache/segment by default
// (DefaultSegmentCache); entries are written atomically and a format version
// in key and header invalidates old ones.
package data

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// SegmentedImage is one image or volume turned into a CRF instance.
//
// Instance.Labels[k] is the majority class of region k; node k of the
// instance is the region with id k in Regions.
type SegmentedImage struct {
	Instance psub.Instance
	// Regions maps every pixel/voxel to its region (node) id 0..n−1.
	Regions *imageio.LabelMap
	// Truth is the pixel/voxel class mask (0 background, 1 foreground;
	// IgnoreClass for unlabelled pixels); nil for an image built without a
	// mask (Pipeline.Segment), as are Oracle and Instance.Labels.
	Truth *imageio.LabelMap
	// Oracle is the pixel confusion of the majority labelling
	// (Instance.Labels projected on pixels): the paper's "Oracle", the best
	// pixel accuracy any labelling of these regions reaches.
	Oracle *feature.Confusion
	// Image is the (possibly downscaled or cropped) input, kept only when
	// the builder's KeepImage is set (for figures); nil otherwise.
	Image *imageio.Volume
}

// Score returns the pixel (voxel) confusion of a prediction given as one
// label per region: the labels are painted on the pixels of their regions
// and compared with Truth. IoU() and VOC() of the result are the paper's
// pixel metrics.
func (s *SegmentedImage) Score(regionLabels []int) (*feature.Confusion, error) {
	if len(regionLabels) != s.Instance.Nodes() {
		return nil, fmt.Errorf("%s: %d region labels for %d regions", s.Instance.Name, len(regionLabels), s.Instance.Nodes())
	}
	if s.Truth == nil {
		return nil, fmt.Errorf("%s: no mask to score against", s.Instance.Name)
	}
	pred, err := feature.Project(s.Regions, regionLabels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.Instance.Name, err)
	}
	c := feature.NewConfusion(s.Oracle.K)
	if err := addMaps(c, s.Truth, pred); err != nil {
		return nil, fmt.Errorf("%s: %w", s.Instance.Name, err)
	}
	return c, nil
}

// addMaps counts truth against pred, skipping the pixels of IgnoreClass.
func addMaps(c *feature.Confusion, truth, pred *imageio.LabelMap) error {
	if !hasIgnored(truth) {
		return c.AddMaps(truth, pred)
	}
	if len(truth.Labels) != len(pred.Labels) {
		return fmt.Errorf("confusion: truth has %d voxels, prediction %d", len(truth.Labels), len(pred.Labels))
	}
	for i, t := range truth.Labels {
		p := pred.Labels[i]
		if t == IgnoreClass {
			continue
		}
		if t < 0 || int(t) >= c.K || p < 0 || int(p) >= c.K {
			return fmt.Errorf("confusion: voxel %d: truth %d, prediction %d, expected 0..%d", i, t, p, c.K-1)
		}
		c.Add(int(t), int(p))
	}
	return nil
}

func hasIgnored(m *imageio.LabelMap) bool {
	for _, l := range m.Labels {
		if l == IgnoreClass {
			return true
		}
	}
	return false
}

// newOracle is feature.NewOracle for class maps with unlabelled pixels
// (IgnoreClass): those vote for no region and count in no score; a region
// all of whose pixels are unlabelled takes class 0 (background).
func newOracle(regions, truth *imageio.LabelMap, k int) (*feature.Oracle, error) {
	if !hasIgnored(truth) {
		return feature.NewOracle(regions, truth, k)
	}
	n, err := feature.Count(regions)
	if err != nil {
		return nil, err
	}
	votes := make([]int64, n*k)
	for i, r := range regions.Labels {
		if t := truth.Labels[i]; t != IgnoreClass {
			votes[int(r)*k+int(t)]++
		}
	}
	labels := make([]int, n)
	for r := range labels {
		v := votes[r*k : (r+1)*k]
		for c := 1; c < k; c++ {
			if v[c] > v[labels[r]] {
				labels[r] = c
			}
		}
	}
	pred, err := feature.Project(regions, labels)
	if err != nil {
		return nil, err
	}
	c := feature.NewConfusion(k)
	if err := addMaps(c, truth, pred); err != nil {
		return nil, err
	}
	return &feature.Oracle{RegionLabels: labels, Voxels: c}, nil
}

// Descriptor computes the unary features φ_u of every region of an image.
// Name identifies the computation in cache keys: give a new name whenever
// Compute changes what it returns.
type Descriptor struct {
	Name    string
	Compute func(img *imageio.Volume, regions *imageio.LabelMap) ([][]float64, error)
}

// CowDescriptor is the paper's cow unary: the joint 5×5×5 RGB histogram of
// an 8-bit colour image (125 values per region, summing to 1).
func CowDescriptor() Descriptor {
	return Descriptor{Name: "rgb-hist-5x5x5", Compute: feature.CowUnary}
}

// RetinaDescriptor is the paper's retina unary: 10-bin intensity histogram
// and 8×8 GLCM (74 values) of a grey image with samples in [0, maxValue].
func RetinaDescriptor(maxValue float64) Descriptor {
	return Descriptor{
		Name: fmt.Sprintf("hist10+glcm8/max%g", maxValue),
		Compute: func(img *imageio.Volume, r *imageio.LabelMap) ([][]float64, error) {
			return feature.RetinaUnary(img, r, maxValue)
		},
	}
}

// EMDescriptor is the paper's mitochondria unary: 40-bin intensity
// histogram, 8×8 GLCM over the three axes and the bias 1 (105 values) of a
// grey volume with samples in [0, maxValue].
func EMDescriptor(maxValue float64) Descriptor {
	return Descriptor{
		Name: fmt.Sprintf("hist40+glcm8x3d+bias/max%g", maxValue),
		Compute: func(img *imageio.Volume, r *imageio.LabelMap) ([][]float64, error) {
			return feature.EMUnary(img, r, maxValue)
		},
	}
}

// SegmentBuilder turns an image and its class mask into a SegmentedImage.
// Descriptor.Compute must be set; SLIC.Segments must be positive.
type SegmentBuilder struct {
	SLIC       slic.Options
	Descriptor Descriptor
	// Classes is the number of classes in the masks; 0 means 2.
	Classes int
	// KeepImage keeps the input image in SegmentedImage.Image.
	KeepImage bool
}

func (b SegmentBuilder) classes() int {
	if b.Classes == 0 {
		return 2
	}
	return b.Classes
}

// Build segments img into regions and builds the instance named name.
// truth must have img's size and classes in [0, Classes). The instance is
// validated before it is returned.
func (b SegmentBuilder) Build(name string, img *imageio.Volume, truth *imageio.LabelMap) (*SegmentedImage, error) {
	if b.Descriptor.Compute == nil {
		return nil, fmt.Errorf("%s: SegmentBuilder has no Descriptor", name)
	}
	if err := img.Check(); err != nil {
		return nil, fmt.Errorf("%s: image: %w", name, err)
	}
	if truth == nil || truth.Width != img.Width || truth.Height != img.Height || truth.Depth != img.Depth {
		return nil, fmt.Errorf("%s: mask size does not match the image %d×%d×%d", name, img.Width, img.Height, img.Depth)
	}
	k := b.classes()
	for i, c := range truth.Labels {
		if (c < 0 && c != IgnoreClass) || int(c) >= k {
			x, y, z := i%truth.Width, (i/truth.Width)%truth.Height, i/(truth.Width*truth.Height)
			return nil, fmt.Errorf("%s: mask voxel (%d,%d,%d): class %d outside [0,%d)", name, x, y, z, c, k)
		}
	}
	regions, _, err := slic.Segment(img, b.SLIC)
	if err != nil {
		return nil, fmt.Errorf("%s: SLIC: %w", name, err)
	}
	return b.fromRegions(name, img, truth, regions)
}

// fromRegions builds everything after SLIC; the cache reuses it to rebuild
// an entry from stored regions.
func (b SegmentBuilder) fromRegions(name string, img *imageio.Volume, truth, regions *imageio.LabelMap) (*SegmentedImage, error) {
	edges, unary, err := b.features(name, img, regions)
	if err != nil {
		return nil, err
	}
	return b.assemble(name, img, truth, regions, edges, unary)
}

// features computes the regions' adjacency and their descriptors.
func (b SegmentBuilder) features(name string, img *imageio.Volume, regions *imageio.LabelMap) (edges [][2]int, unary [][]float64, err error) {
	if edges, err = feature.Adjacency(regions); err != nil {
		return nil, nil, fmt.Errorf("%s: adjacency: %w", name, err)
	}
	if unary, err = b.Descriptor.Compute(img, regions); err != nil {
		return nil, nil, fmt.Errorf("%s: descriptor %s: %w", name, b.Descriptor.Name, err)
	}
	return edges, unary, nil
}

// assemble finishes an instance from its regions, edges and unaries.
func (b SegmentBuilder) assemble(name string, img *imageio.Volume, truth, regions *imageio.LabelMap, edges [][2]int, unary [][]float64) (*SegmentedImage, error) {
	pair, err := feature.Pairwise(unary, edges)
	if err != nil {
		return nil, fmt.Errorf("%s: pairwise: %w", name, err)
	}
	oracle, err := newOracle(regions, truth, b.classes())
	if err != nil {
		return nil, fmt.Errorf("%s: majority vote: %w", name, err)
	}
	s := &SegmentedImage{
		Instance: instanceOf(name, unary, edges, pair, oracle.RegionLabels),
		Regions:  regions,
		Truth:    truth,
		Oracle:   oracle.Voxels,
	}
	if err := s.Instance.Validate(0, -1, -1, b.classes()); err != nil {
		return nil, err
	}
	if b.KeepImage {
		s.Image = img
	}
	return s, nil
}

func instanceOf(name string, unary [][]float64, edges [][2]int, pair [][]float64, labels []int) psub.Instance {
	return psub.Instance{Name: name, Unary: unary, Edges: edges, Pairwise: pair, Labels: labels}
}

// SegmentSource is one image to build: a name, a loader, and what the cache
// key needs to know about it.
type SegmentSource struct {
	Name string
	// Files are the files Load reads; their bytes are part of the cache key.
	Files []string
	// Transform describes what Load does to the files beyond decoding them
	// (downscale, crop, threshold); it is part of the cache key.
	Transform string
	// Load reads the image and its class mask.
	Load func() (*imageio.Volume, *imageio.LabelMap, error)
}

// SegmentedSet is a built data set.
type SegmentedSet struct {
	Name string // data set, e.g. "tud_cows"
	// Description says which data the set was built from and how, including
	// whether it is reduced (fewer images, downscaled, cropped).
	Description string
	Reduced     bool
	Items       []*SegmentedImage
}

// Instances returns the CRF instances of the set, in order.
func (s *SegmentedSet) Instances() []psub.Instance {
	out := make([]psub.Instance, len(s.Items))
	for i, it := range s.Items {
		out[i] = it.Instance
	}
	return out
}

// BuildOptions controls BuildSegmented.
type BuildOptions struct {
	// Workers is the number of images built at once; 0 means GOMAXPROCS.
	// With fewer sources than workers, SLIC itself runs in parallel.
	Workers int
	// Cache, when not nil, is consulted before and filled after building.
	Cache *SegmentCache
	// Progress, when not nil, is called after each image with the number
	// done so far and the total; calls are serialised, done increases.
	Progress func(done, total int)
}

// BuildSegmented builds every source with b, in parallel. The result keeps
// the order of sources. The first error (naming its source) stops the build.
func BuildSegmented(sources []SegmentSource, b SegmentBuilder, opt BuildOptions) ([]*SegmentedImage, error) {
	if len(sources) > 1 && b.SLIC.Workers == 0 {
		// One image per core beats splitting each image across cores.
		b.SLIC.Workers = 1
	}
	out := make([]*SegmentedImage, len(sources))
	err := forEach(len(sources), opt.Workers, func(i int) (err error) {
		out[i], err = buildOne(sources[i], b, opt.Cache)
		return err
	}, opt.Progress)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// forEach calls fn(i) for every i < n on up to workers goroutines (0: one
// per core), in order of i, and returns the error of the lowest i that
// failed. After a failure no further i starts: those below it have all
// started, so the error is the same whatever the timing. progress, when
// set, is told of every success until then (serialised, done increasing).
func forEach(n, workers int, fn func(i int) error, progress func(done, total int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	var (
		mu     sync.Mutex
		done   int
		failed bool
		wg     sync.WaitGroup
	)
	next := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				err := fn(i)
				mu.Lock()
				errs[i], failed, done = err, failed || err != nil, done+1
				if progress != nil && !failed {
					progress(done, n)
				}
				mu.Unlock()
			}
		})
	}
	for i := range n {
		mu.Lock()
		stop := failed
		mu.Unlock()
		if stop {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func buildOne(src SegmentSource, b SegmentBuilder, cache *SegmentCache) (*SegmentedImage, error) {
	var key string
	if cache != nil {
		var err error
		if key, err = cache.Key(src, b); err != nil {
			return nil, err
		}
		s, err := cache.Get(key, b)
		if err != nil {
			return nil, err
		}
		if s != nil {
			if b.KeepImage {
				img, _, err := src.Load()
				if err != nil {
					return nil, err
				}
				s.Image = img
			}
			return s, nil
		}
	}
	img, truth, err := src.Load()
	if err != nil {
		return nil, err
	}
	s, err := b.Build(src.Name, img, truth)
	if err != nil {
		return nil, err
	}
	if cache != nil {
		if err := cache.Put(key, s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func hasExt(exts []string, ext string) bool {
	for _, e := range exts {
		if strings.EqualFold(e, ext) {
			return true
		}
	}
	return false
}

// Downscale shrinks a 2-D image by an integer factor f, averaging f×f
// blocks (partial blocks at the right and bottom edges average what they
// have). f = 1 returns v itself.
func Downscale(v *imageio.Volume, f int) *imageio.Volume {
	if f <= 1 {
		return v
	}
	w, h := (v.Width+f-1)/f, (v.Height+f-1)/f
	out := imageio.NewVolume(w, h, v.Depth, v.Channels)
	cnt := make([]float32, w*h)
	for z := range v.Depth {
		clear(cnt)
		for y := range v.Height {
			for x := range v.Width {
				i, o := v.Index(x, y, z), out.Index(x/f, y/f, z)
				for c := range v.Channels {
					out.Pix[o+c] += v.Pix[i+c]
				}
				cnt[(y/f)*w+x/f]++
			}
		}
		for j, n := range cnt {
			o := (z*h*w + j) * v.Channels
			for c := range v.Channels {
				out.Pix[o+c] /= n
			}
		}
	}
	return out
}

// DownscaleMask shrinks a 0/1 mask by an integer factor f: a block is
// foreground when at least half of its pixels are.
func DownscaleMask(m *imageio.LabelMap, f int) *imageio.LabelMap {
	if f <= 1 {
		return m
	}
	w, h := (m.Width+f-1)/f, (m.Height+f-1)/f
	out := imageio.NewLabelMap(w, h, m.Depth)
	fg := make([]int, w*h)
	n := make([]int, w*h)
	for z := range m.Depth {
		clear(fg)
		clear(n)
		for y := range m.Height {
			for x := range m.Width {
				j := (y/f)*w + x/f
				n[j]++
				if m.Labels[m.Index(x, y, z)] != 0 {
					fg[j]++
				}
			}
		}
		for j := range n {
			if 2*fg[j] >= n[j] {
				out.Labels[z*w*h+j] = 1
			}
		}
	}
	return out
}
