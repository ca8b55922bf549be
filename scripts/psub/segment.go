package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/membudget"
	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/psub"
	"github.com/probably-submodular/crf/psub/feature"
	"github.com/probably-submodular/crf/psub/imageio"
	"github.com/probably-submodular/crf/psub/slic"
)

// runSegment dispatches "psub segment train|predict".
func runSegment(args []string, stdout, stderr io.Writer) error {
	sub := map[string]func([]string, io.Writer, io.Writer) error{"train": runSegmentTrain, "predict": runSegmentPredict}
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: psub segment train -images DIR [-masks DIR] -o MODEL [flags]\n       psub segment predict -model MODEL -images DIR -o DIR [-masks DIR]\n\nRun 'psub segment train -h' or 'psub segment predict -h' for the flags.")
	}
	switch {
	case len(args) == 0:
		return &usageError{msg: "want train or predict", usage: usage}
	case isHelpFlag(args[0]):
		usage(stdout)
		return nil
	}
	f, ok := sub[args[0]]
	if !ok {
		return &usageError{msg: fmt.Sprintf("unknown subcommand %q: want train or predict", args[0]), usage: usage}
	}
	return f(args[1:], stdout, stderr)
}

// maskFlags are the flags that say how masks are read (data.MaskFormat)
// and paired with images (data.Pair).
type maskFlags struct {
	masks, suffix, values, ignore *string
	classes                       *int
	threshold                     *float64
	invert                        *bool
}

func addMaskFlags(fs *flags, forTraining bool) maskFlags {
	m := maskFlags{
		masks:  fs.String("masks", "", "folder of the masks (default: the -images folder, with a mask suffix)"),
		suffix: fs.String("mask-suffix", "", "the mask of STEM.EXT is STEM+SUFFIX.* (default: the same stem, else the first of "+strings.Join(data.CommonMaskSuffixes(), " ")+" that pairs every file)"),
	}
	if forTraining {
		m.classes = fs.Int("classes", 2, "classes in the masks: 2 (binary) or K > 2 (index masks, values 0..K-1)")
		m.values = fs.String("mask-values", "", "binary masks: BACKGROUND,OBJECT values (default: the two values each mask holds, the larger the object)")
		m.threshold = fs.Float64("mask-threshold", 0, "binary masks: object where the value is >= this (for JPEG masks); 0: exact values")
		m.invert = fs.Bool("invert", false, "binary masks: the object is the smaller value (dark object on a light mask)")
		m.ignore = fs.String("ignore", "", "comma-separated mask values of unlabelled pixels (vote for no superpixel, count in no score)")
	}
	return m
}

func parseFloats(flag, s string) ([]float64, error) {
	if s == "" {
		return nil, nil
	}
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("-%s %q: %q is not a number", flag, s, f)
		}
		out = append(out, v)
	}
	return out, nil
}

func (m maskFlags) format(fs *flags) (data.MaskFormat, error) {
	values, err := parseFloats("mask-values", *m.values)
	if err != nil {
		return data.MaskFormat{}, fs.usageErr("%v", err)
	}
	ignore, err := parseFloats("ignore", *m.ignore)
	if err != nil {
		return data.MaskFormat{}, fs.usageErr("%v", err)
	}
	f := data.MaskFormat{Classes: *m.classes, Threshold: *m.threshold, Values: values, Invert: *m.invert, Ignore: ignore}
	if f.Classes == 2 {
		f.Classes = 0
	}
	if err := f.Check(); err != nil {
		return f, fs.usageErr("%v", err)
	}
	return f, nil
}

func (m maskFlags) pair(imageDir string) (images, masks []string, suffix string, err error) {
	return data.Pair(imageDir, cmp.Or(*m.masks, imageDir), data.PairOptions{MaskSuffix: *m.suffix, AutoSuffix: *m.suffix == ""})
}

// segmentTrainResult is the JSON object of "psub segment train".
type segmentTrainResult struct {
	Model       string          `json:"model"`
	Images      int             `json:"images"`
	MaskSuffix  string          `json:"mask_suffix"`
	Recipe      data.Recipe     `json:"recipe"`
	Masks       string          `json:"masks"`
	Superpixels float64         `json:"superpixels_per_image"`
	Set         string          `json:"set"`
	C           float64         `json:"C"`
	Selection   []cSelectionRow `json:"c_selection,omitempty"`
	Held        []string        `json:"held_out,omitempty"`
	TrainAcc    float64         `json:"train_pixel_accuracy"`
	Converged   bool            `json:"converged"`
	Status      string          `json:"status"`
	Seconds     float64         `json:"seconds"`
	BuildSecs   float64         `json:"build_seconds"`
}

// cSelectionRow is one C tried on the held-out images.
type cSelectionRow struct {
	C        float64 `json:"C"`
	Accuracy float64 `json:"held_out_pixel_accuracy"`
	VOC      float64 `json:"held_out_voc"`
}

func runSegmentTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("segment train", "psub segment train -images DIR [-masks DIR] -o MODEL [-set C4] [-C 1 | -C-grid 0.1,1,10 -holdout 0.25] [flags]", stdout)
	imageDir := fs.String("images", "", "folder of the training images (PNG, JPEG, BMP, TIFF; multi-page TIFF: a volume); required")
	mf := addMaskFlags(fs, true)
	out := fs.String("o", "", "write the model (JSON: pipeline, label meaning, CRF) here; required")
	recipe := fs.String("recipe", "auto", "feature recipe: "+strings.Join(data.RecipeNames(), ", ")+" (or cows, retina, mito); auto: rgb-hist for colour images, hist-glcm for grey, hist-glcm-bias for volumes")
	maxValue := fs.Float64("max-value", 0, "largest sample value of the images (0: 255, or 65535 when the first image has larger samples)")
	regionSize := fs.Int("region-size", 200, "pixels (voxels) per superpixel: each image gets size/region-size SLIC segments")
	segments := fs.Int("segments", 0, "SLIC segments per image instead of -region-size")
	compactness := fs.Float64("compactness", 10, "SLIC compactness m")
	sigma := fs.Float64("sigma", 1, "SLIC Gaussian pre-smoothing, pixels")
	setName := fs.String("set", "C4", "constraint set: C0 C1 C2 C2* C3 C4, or none")
	c := fs.Float64("C", 1, "regularisation constant (psub's units, see psub train)")
	cGrid := fs.String("C-grid", "", "comma-separated C values to choose from on the held-out images (needs -holdout)")
	holdout := fs.Float64("holdout", 0, "fraction of the images held out to choose C from -C-grid; the model is then trained on all images with the best C")
	seed := fs.Uint64("seed", 1, "seed of the hold-out draw")
	tol := fs.Float64("tol", 1e-3, "stop at this relative primal-dual gap")
	maxIter := fs.Int("max-iter", 1000, "maximum cutting-plane iterations")
	ckpt := fs.String("checkpoint", "", "keep a checkpoint of every training (each C) in this folder and resume from it when run again with the same images and settings")
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if err := firstErr(
		fs.intIn("classes", *mf.classes, 2, maxLabels, "classes in the masks"),
		fs.floatIn("mask-threshold", *mf.threshold, 0, math.MaxUint16, false, false, "a mask sample value, 0 for exact values"),
		fs.floatIn("max-value", *maxValue, 0, math.MaxFloat32, false, false, "the images' largest sample value, 0 to take it from the images"),
		fs.intIn("region-size", *regionSize, 0, math.MaxInt32, "pixels (voxels) per superpixel, 0 with -segments"),
		fs.intIn("segments", *segments, 0, maxSegments, "SLIC segments per image, 0 to use -region-size"),
		fs.floatIn("compactness", *compactness, 0, maxCompactness, true, false, "the SLIC compactness"),
		fs.floatIn("sigma", *sigma, 0, maxSigma, false, false, "the Gaussian σ in pixels, 0 for none"),
		fs.floatIn("C", *c, 0, math.Inf(1), true, true, "the regularisation constant, positive and finite"),
		fs.floatIn("holdout", *holdout, 0, 1, false, true, "the fraction of images held out to choose C, 0 for none"),
		fs.floatIn("tol", *tol, 0, 1, true, true, "the relative primal-dual gap at which training stops; at 1 or more it would stop at w = 0"),
		fs.intIn("max-iter", *maxIter, 1, math.MaxInt32, "cutting-plane iterations"),
	); err != nil {
		return err
	}
	switch {
	case *imageDir == "":
		return fs.usageErr("-images is required")
	case *out == "":
		return fs.usageErr("-o is required")
	case *regionSize <= 0 && *segments <= 0:
		return fs.usageErr("-region-size %d, -segments %d: set one positive", *regionSize, *segments)
	case (*cGrid != "") != (*holdout > 0):
		return fs.usageErr("-C-grid and -holdout go together")
	}
	if err := fs.guard(paths(fileArg("-o", *out), folderArg("-checkpoint", *ckpt)),
		paths(folderArg("-images", *imageDir), folderArg("-masks", *mf.masks))); err != nil {
		return err
	}
	grid, err := parseFloats("C-grid", *cGrid)
	if err != nil {
		return fs.usageErr("%v", err)
	}
	for _, g := range grid {
		if !(g > 0) {
			return fs.usageErr("-C-grid: %g is not positive", g)
		}
	}
	format, err := mf.format(fs)
	if err != nil {
		return err
	}
	set, err := psub.SetByName(*setName)
	if err != nil || *setName == "C4bar" {
		return fs.usageErr("-set %q: want one of C0 C1 C2 C2* C3 C4 none", *setName)
	}
	if err := safefile.CheckWritable(*out); err != nil {
		return fmt.Errorf("-o %w", err)
	}
	start := time.Now()
	images, masks, suffix, err := mf.pair(*imageDir)
	if err != nil {
		return err
	}
	first, err := imageio.ReadImage(images[0])
	if err != nil {
		return err
	}
	r, err := chooseRecipe(*recipe, *maxValue, first)
	if err != nil {
		return fs.usageErr("%v", err)
	}
	p := data.Pipeline{Recipe: r, SLIC: slic.Options{Segments: *segments, Compactness: *compactness, Sigma: *sigma}, Masks: format}
	if *segments == 0 {
		p.RegionSize = *regionSize
	}
	fmt.Fprintf(stderr, "building %d images (recipe %s, masks: %s, pairing suffix %q)\n", len(images), r.Name, format, suffix)
	items, err := p.Build(images, masks, false, data.BuildOptions{Progress: func(done, total int) {
		fmt.Fprintf(stderr, "built %d/%d\n", done, total)
	}})
	if err != nil {
		return err
	}
	buildSecs := time.Since(start).Seconds()
	L := format.NumClasses()
	settings := func(cv float64, what string) psub.Settings {
		return psub.Settings{C: cv, Tol: *tol, MaxIter: *maxIter, Set: set, CheckpointDir: *ckpt,
			Description: fmt.Sprintf("psub segment train -images %s -set %s -C %g (%s)", *imageDir, set.Name(), cv, what),
			Progress: func(it psub.Iteration) {
				if it.Iter%10 == 0 {
					fmt.Fprintf(stderr, "  C %g %s: iter %d gap %.2e\n", cv, what, it.Iter, it.Gap)
				}
			}}
	}
	res := segmentTrainResult{Model: *out, Images: len(images), MaskSuffix: suffix, Recipe: r, Masks: format.String(), Set: set.Name(), C: *c}
	var nodes int
	for _, it := range items {
		nodes += it.Instance.Nodes()
	}
	res.Superpixels = float64(nodes) / float64(len(items))
	if len(grid) > 0 {
		tr, held, err := data.SplitHoldout(len(items), *holdout, *seed)
		if err != nil {
			return fs.usageErr("%v", err)
		}
		for _, i := range held {
			res.Held = append(res.Held, items[i].Instance.Name)
		}
		best := -1.0
		for _, cv := range grid {
			m, _, err := psub.Train(instancesOf(items, tr), L, settings(cv, "selection"))
			if err != nil {
				return fmt.Errorf("training with C %g: %w", cv, err)
			}
			conf, err := pixelScore(m, items, held, L)
			if err != nil {
				return err
			}
			row := cSelectionRow{C: cv, Accuracy: conf.Accuracy(), VOC: conf.VOC()}
			fmt.Fprintf(stderr, "C %g: held-out pixel accuracy %.4f, VOC %.4f\n", cv, row.Accuracy, row.VOC)
			res.Selection = append(res.Selection, row)
			if row.Accuracy > best {
				best, res.C = row.Accuracy, cv
			}
		}
	}
	all := make([]int, len(items))
	for i := range all {
		all[i] = i
	}
	model, trace, err := psub.Train(instancesOf(items, all), L, settings(res.C, "final"))
	if err != nil {
		return fmt.Errorf("training with C %g: %w", res.C, err)
	}
	fmt.Fprintln(stderr, trace.Status())
	res.Converged, res.Status = trace.Converged, trace.Status()
	conf, err := pixelScore(model, items, all, L)
	if err != nil {
		return err
	}
	res.TrainAcc = conf.Accuracy()
	seg := data.NewSegmenter(p, model)
	if seg.Training, err = json.Marshal(map[string]any{"images": *imageDir, "images_count": len(images), "mask_suffix": suffix,
		"set": set.Name(), "C": res.C, "c_selection": res.Selection, "held_out": res.Held, "seed": *seed}); err != nil {
		return err
	}
	if err := seg.Save(*out); err != nil {
		return err
	}
	res.Seconds, res.BuildSecs = time.Since(start).Seconds(), buildSecs
	return writeJSON(stdout, res)
}

// chooseRecipe resolves -recipe auto from the first image.
func chooseRecipe(name string, maxValue float64, first *imageio.Volume) (data.Recipe, error) {
	if maxValue == 0 {
		maxValue = 255
		if slices.ContainsFunc(first.Pix, func(s float32) bool { return s > 255 }) {
			maxValue = 65535
		}
	}
	if name == "auto" {
		switch {
		case first.Depth > 1:
			name = data.RecipeHistGLCMBias
		case first.Channels == 3:
			name = data.RecipeRGBHist
		default:
			name = data.RecipeHistGLCM
		}
	}
	r, err := data.RecipeByName(name, maxValue)
	if err != nil {
		return r, fmt.Errorf("-recipe: %w", err)
	}
	return r, nil
}

func instancesOf(items []*data.SegmentedImage, idx []int) []psub.Instance {
	out := make([]psub.Instance, len(idx))
	for i, j := range idx {
		out[i] = items[j].Instance
	}
	return out
}

// pixelScore pools the pixel confusion of the model's predictions on the
// items idx.
func pixelScore(m *psub.Model, items []*data.SegmentedImage, idx []int, labels int) (*feature.Confusion, error) {
	total := feature.NewConfusion(labels)
	for _, i := range idx {
		r, err := m.Predict(&items[i].Instance)
		if err != nil {
			return nil, err
		}
		c, err := items[i].Score(r.Labels)
		if err != nil {
			return nil, err
		}
		if err := total.Merge(c); err != nil {
			return nil, err
		}
	}
	return total, nil
}

// segmentPredictResult is the JSON object of "psub segment predict".
type segmentPredictResult struct {
	Model     string    `json:"model"`
	Images    int       `json:"images"`
	Out       string    `json:"out"`
	Predicted int       `json:"predicted"`
	Resumed   int       `json:"resumed"`
	Accuracy  *float64  `json:"pixel_accuracy,omitempty"`
	IoU       []float64 `json:"iou,omitempty"`
	VOC       *float64  `json:"voc,omitempty"`
	Seconds   float64   `json:"seconds"`
}

// imageSummary is the JSON file written beside each predicted mask.
type imageSummary struct {
	Tool        string    `json:"tool"`
	Image       string    `json:"image"`
	ImageSHA256 string    `json:"image_sha256"`
	ModelSHA256 string    `json:"model_sha256"`
	MaskFile    string    `json:"mask_file,omitempty"`
	MaskSHA256  string    `json:"truth_sha256,omitempty"`
	Output      string    `json:"output"`
	Overlay     string    `json:"overlay"`
	Width       int       `json:"width"`
	Height      int       `json:"height"`
	Depth       int       `json:"depth"`
	Superpixels int       `json:"superpixels"`
	Edges       int       `json:"edges"`
	Truncated   int       `json:"truncated_edges"`
	Seconds     float64   `json:"seconds"`
	Accuracy    *float64  `json:"pixel_accuracy,omitempty"`
	IoU         []float64 `json:"iou,omitempty"`
	Counts      []int64   `json:"confusion,omitempty"`
	// Pending marks the claim written before the mask and the overlay: a
	// run killed before the final summary leaves it, and the next run
	// does the image again over the files it claims.
	Pending bool `json:"pending,omitempty"`
}

const predictTool = "psub segment predict"

func runSegmentPredict(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("segment predict", "psub segment predict -model MODEL -images DIR -o DIR [-masks DIR]", stdout)
	modelPath := fs.String("model", "", "a model written by psub segment train; required")
	imageDir := fs.String("images", "", "folder of the images to segment; required")
	mf := addMaskFlags(fs, false) // masks to score against; read with the model's mask format
	outDir := fs.String("o", "", "output folder: STEM.png (STEM.tif for TIFF input) mask, STEM_overlay.png, STEM.json summary per image; required")
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *modelPath == "" || *imageDir == "" || *outDir == "" {
		return fs.usageErr("-model, -images and -o are required")
	}
	if err := fs.guard(paths(folderArg("-o", *outDir)),
		paths(fileArg("-model", *modelPath), folderArg("-images", *imageDir), folderArg("-masks", *mf.masks))); err != nil {
		return err
	}
	start := time.Now()
	seg, err := data.LoadSegmenter(*modelPath)
	if err != nil {
		return err
	}
	modelSum, err := data.FileSHA256(*modelPath)
	if err != nil {
		return err
	}
	// Masks are used when -masks or -mask-suffix is given, or when a mask
	// suffix pairs every file of -images (a folder like the training one).
	images, masks, _, err := mf.pair(*imageDir)
	if err != nil {
		if *mf.masks != "" || *mf.suffix != "" {
			return err
		}
		masks = nil
		if images, err = data.ListImages(*imageDir); err != nil {
			return err
		}
	}
	if err := checkOutputNames(*outDir, images); err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	L := seg.CRF.Labels
	res := segmentPredictResult{Model: *modelPath, Images: len(images), Out: *outDir}
	total := feature.NewConfusion(L)
	for i, img := range images {
		mask := ""
		if masks != nil {
			mask = masks[i]
		}
		sum, resumed, err := predictOne(seg, modelSum, img, mask, *outDir)
		if err != nil {
			return err
		}
		what := "predicted"
		if resumed {
			res.Resumed++
			what = "kept (same model and image)"
		} else {
			res.Predicted++
		}
		fmt.Fprintf(stderr, "%d/%d %s: %s, %d superpixels, %.2f s\n", i+1, len(images), filepath.Base(img), what, sum.Superpixels, sum.Seconds)
		if sum.Counts != nil {
			c := feature.NewConfusion(L)
			copy(c.Counts, sum.Counts)
			if err := total.Merge(c); err != nil {
				return err
			}
		}
	}
	if masks != nil {
		acc, voc := total.Accuracy(), total.VOC()
		res.Accuracy, res.IoU, res.VOC = &acc, total.IoU(), &voc
	}
	res.Seconds = time.Since(start).Seconds()
	return writeJSON(stdout, res)
}

// predictOutputs are the files predictOne writes for an image.
func predictOutputs(outDir, img string) (mask, overlay, summary string) {
	stem := data.Stem(img)
	ext := ".png"
	if e := strings.ToLower(filepath.Ext(img)); e == ".tif" || e == ".tiff" {
		ext = ".tif"
	}
	return filepath.Join(outDir, stem+ext), filepath.Join(outDir, stem+"_overlay.png"), filepath.Join(outDir, stem+".json")
}

// checkOutputNames refuses, before any work, two images whose outputs
// share a name (a.png and a.jpg both write a.png; the mask of a_overlay.png
// is the overlay of a.png): the second would replace the first's.
func checkOutputNames(outDir string, images []string) error {
	owner := map[string]string{}
	for _, img := range images {
		mask, overlay, summary := predictOutputs(outDir, img)
		for _, f := range []string{mask, overlay, summary} {
			if prev, ok := owner[f]; ok && prev != img {
				return fmt.Errorf("%s and %s would both write %s: one would replace the other's result; rename one or segment them into different -o folders", prev, img, f)
			}
			owner[f] = img
		}
	}
	return nil
}

// predictOne segments one image unless its summary shows that the same
// model already did it on the same image (and mask). It first writes a
// pending summary that claims the mask and the overlay, then the mask, the
// overlay and the final summary, each atomically, so a killed run leaves
// whole files that a summary claims, and the next run does the image
// again. It never overwrites a file that a summary of this tool does not
// claim.
func predictOne(seg *data.Segmenter, modelSum, img, maskPath, outDir string) (*imageSummary, bool, error) {
	maskOut, overlay, summary := predictOutputs(outDir, img)
	imgSum, err := data.FileSHA256(img)
	if err != nil {
		return nil, false, err
	}
	truthSum := ""
	if maskPath != "" {
		if truthSum, err = data.FileSHA256(maskPath); err != nil {
			return nil, false, err
		}
	}
	if old, err := readSummary(summary); err == nil {
		if !old.Pending && old.ImageSHA256 == imgSum && old.ModelSHA256 == modelSum && old.MaskSHA256 == truthSum && exists(maskOut) && exists(overlay) {
			return old, true, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, false, err
	} else {
		for _, f := range []string{maskOut, overlay} {
			if exists(f) {
				return nil, false, fmt.Errorf("%s exists and no %s of %s claims it: refusing to overwrite (move it, or choose another -o)", f, filepath.Base(summary), predictTool)
			}
		}
	}
	start := time.Now()
	raw, err := imageio.ReadImage(img)
	if err != nil {
		return nil, false, err
	}
	var truth *imageio.LabelMap
	if maskPath != "" {
		if truth, err = seg.Pipeline.Masks.ReadMask(maskPath); err != nil {
			return nil, false, err
		}
		if err := imageio.CheckSameSize(img, raw, maskPath, truth); err != nil {
			return nil, false, err
		}
	}
	// Only the overlay's slice of the image is kept: Predict can then free
	// the volume once its features are computed.
	width, height, depth := raw.Width, raw.Height, raw.Depth
	z := depth / 2
	base := data.SliceVolume(raw, z)
	pred, err := seg.Predict(img, raw)
	if err != nil {
		return nil, false, err
	}
	claim := &imageSummary{Tool: predictTool, Image: img, ImageSHA256: imgSum, ModelSHA256: modelSum, Output: maskOut, Overlay: overlay, Pending: true}
	if err := writeSummary(summary, claim); err != nil {
		return nil, false, err
	}
	if err := seg.WriteMask(maskOut, pred.Pixels); err != nil {
		return nil, false, err
	}
	if err := data.WriteOverlay(overlay, base, data.SliceLabels(pred.Pixels, z), 0); err != nil {
		return nil, false, err
	}
	s := &imageSummary{Tool: predictTool, Image: img, ImageSHA256: imgSum, ModelSHA256: modelSum, MaskFile: maskPath, MaskSHA256: truthSum,
		Output: maskOut, Overlay: overlay, Width: width, Height: height, Depth: depth,
		Superpixels: pred.Instance.Nodes(), Edges: len(pred.Instance.Edges), Truncated: pred.Truncated}
	if truth != nil {
		c, err := data.ScoreMask(truth, pred.Pixels, seg.CRF.Labels)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", maskPath, err)
		}
		acc := c.Accuracy()
		s.Accuracy, s.IoU, s.Counts = &acc, c.IoU(), c.Counts
	}
	s.Seconds = time.Since(start).Seconds()
	return s, false, writeSummary(summary, s)
}

func writeSummary(path string, s *imageSummary) error {
	return safefile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(s)
	})
}

func readSummary(path string) (*imageSummary, error) {
	b, err := membudget.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s imageSummary
	if err := json.Unmarshal(b, &s); err != nil || s.Tool != predictTool {
		return nil, fmt.Errorf("%s exists and is not a summary of %s: refusing to overwrite it", path, predictTool)
	}
	return &s, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
