package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/psub"
)

// exportFile describes one written JSON Lines file.
type exportFile struct {
	Path        string `json:"path"`
	Instances   int    `json:"instances"`
	UnaryDim    int    `json:"unary_dim"`
	PairwiseDim int    `json:"pairwise_dim"`
	Labels      int    `json:"labels"`
}

// exportResult is the JSON object printed by "psub export".
type exportResult struct {
	Dataset     string       `json:"dataset"`
	Description string       `json:"description"`
	Files       []exportFile `json:"files"`
	Seconds     float64      `json:"seconds"`
}

// exportOptions are the flags an exporter may use.
type exportOptions struct {
	dataPath  string
	seed      uint64
	limit     int
	downscale int
	noBias    bool
	quick     bool
	cache     *data.SegmentCache
}

// exporter builds the named parts of a data set (e.g. "train", "test").
type exporter struct {
	summary string
	build   func(o exportOptions) (parts map[string][]psub.Instance, description string, err error)
}

func exporters() map[string]exporter {
	multi := func(load func(string) (*data.MultiLabelSet, *data.MultiLabelSet, error), name string) exporter {
		return exporter{name + " multi-label (ARFF) as label graphs (notebooks/TARGETS.md §5; large: |E|·40 pairwise dims per edge)",
			func(o exportOptions) (map[string][]psub.Instance, string, error) {
				train, test, err := load(o.dataPath)
				if err != nil {
					return nil, "", err
				}
				return multiParts(train, test, name, o)
			}}
	}
	images := func(build func(data.ImageSetOptions) (*data.SegmentedSet, error), name string) exporter {
		return exporter{name + " images → SLIC → region graphs with the paper's settings (one file, no split)",
			func(o exportOptions) (map[string][]psub.Instance, string, error) {
				s, err := build(data.ImageSetOptions{Path: o.dataPath, Limit: o.limit, Downscale: o.downscale, Cache: o.cache})
				if err != nil {
					return nil, "", err
				}
				return map[string][]psub.Instance{name: s.Instances()}, s.Description, nil
			}}
	}
	return map[string]exporter{
		"synthetic": {"the embedded synthetic segmentation problem (20 train / 20 test graphs)",
			func(o exportOptions) (map[string][]psub.Instance, string, error) {
				s := data.SyntheticSegmentation(data.SegmentationOptions{Seed: o.seed})
				return map[string][]psub.Instance{"train": s.Train, "test": s.Test},
					fmt.Sprintf("synthetic segmentation, seed %d (data.SyntheticSegmentation)", o.seed), nil
			}},
		"synthetic-multilabel": {"the embedded synthetic multi-label problem as label graphs",
			func(o exportOptions) (map[string][]psub.Instance, string, error) {
				train, test := data.SyntheticMultiLabel(data.SyntheticMultiLabelOptions{Seed: o.seed})
				return multiParts(train, test, fmt.Sprintf("synthetic multi-label, seed %d", o.seed), o)
			}},
		"yeast": multi(data.LoadYeast, "yeast"),
		"scene": multi(data.LoadScene, "scene"),
		"mito": {"EPFL mitochondria training and testing volumes → ~130K supervoxels each (slow; -quick: a 256×192×40 crop)",
			func(o exportOptions) (map[string][]psub.Instance, string, error) {
				parts := map[string][]psub.Instance{}
				var desc []string
				for part, vol := range map[string]string{"train": "training", "test": "testing"} {
					opt := data.MitoOptions{Path: o.dataPath, Volume: vol, Cache: o.cache}
					if o.quick {
						opt.Crop = data.MitoQuickCrop()
					}
					s, err := data.BuildMito(opt)
					if err != nil {
						return nil, "", err
					}
					parts[part] = s.Instances()
					desc = append(desc, s.Description)
				}
				sort.Strings(desc)
				return parts, strings.Join(desc, "; "), nil
			}},
		"cows":   images(data.BuildCows, "cows"),
		"horses": images(data.BuildHorses, "horses"),
	}
}

func multiParts(train, test *data.MultiLabelSet, name string, o exportOptions) (map[string][]psub.Instance, string, error) {
	p, err := data.BuildMultiLabel(train, test, data.MultiLabelOptions{NoBias: o.noBias})
	if err != nil {
		return nil, "", err
	}
	bias := "x ⊕ 1"
	if o.noBias {
		bias = "x (no bias)"
	}
	_, k := p.PCA.Dims()
	return map[string][]psub.Instance{"train": p.Train, "test": p.Test},
		fmt.Sprintf("%s: unary 1(k) ⊗ %s, pairwise 1(e) ⊗ R(x), %d-dim PCA fitted on train", name, bias, k), nil
}

// visibleNames replaces, in set, the names that are not valid UTF-8 (a
// file name from disk, say) by data.VisibleName's, saying so on stderr:
// JSON would otherwise alter them without a word.
func visibleNames(set []psub.Instance, path string, stderr io.Writer) {
	for i := range set {
		if v, ok := data.VisibleName(set[i].Name); !ok {
			fmt.Fprintf(stderr, "warning: %s: instance %d: name %q is not valid UTF-8; written as %s\n", path, i, set[i].Name, v)
			set[i].Name = v
		}
	}
}

func runExport(args []string, stdout, stderr io.Writer) error {
	ex := exporters()
	names := slices.Sorted(maps.Keys(ex))
	fs := newFlags("export", "psub export -dataset NAME -o DIR [-data PATH] [-seed 1] [-limit N] [-downscale F]", stdout)
	dataset := fs.String("dataset", "", "data set: "+strings.Join(names, ", ")+"; required")
	out := fs.String("o", "", "output directory (created); required")
	dataPath := fs.String("data", "", "data folder (default: $PSUB_DATA, then ../shared/data from the module root)")
	seed := fs.Uint64("seed", 1, "seed of the synthetic generators")
	limit := fs.Int("limit", 0, "image sets: build only the first N images (0: all)")
	downscale := fs.Int("downscale", 0, "image sets: shrink images by this factor (0: full resolution)")
	noBias := fs.Bool("no-bias", false, "multi-label: no constant 1 in the unary features (the paper's exact map)")
	quick := fs.Bool("quick", false, "mito: build the quick profile's crop instead of the whole volumes")
	noCache := fs.Bool("no-cache", false, "image sets: do not read or write the on-disk superpixel cache")
	fs.after = func(w io.Writer) {
		fmt.Fprintln(w, "\ndata sets (written as JSON Lines graphs, format: data/FORMATS.md):")
		for _, n := range names {
			fmt.Fprintf(w, "  %-22s %s\n", n, ex[n].summary)
		}
	}
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *dataset == "" || *out == "" {
		return fs.usageErr("-dataset and -o are required")
	}
	e, ok := ex[*dataset]
	if !ok {
		return fs.usageErr("-dataset %q: unknown; known: %s", *dataset, strings.Join(names, ", "))
	}
	if err := firstErr(
		fs.intIn("limit", *limit, 0, math.MaxInt32, "images to build, 0 for all"),
		fs.intIn("downscale", *downscale, 0, 1<<12, "the factor images are shrunk by, 0 for none"),
	); err != nil {
		return err
	}
	if err := fs.guard(paths(folderArg("-o", *out)), dataFolders(*dataPath)); err != nil {
		return err
	}
	start := time.Now()
	o := exportOptions{dataPath: *dataPath, seed: *seed, limit: *limit, downscale: *downscale, noBias: *noBias, quick: *quick}
	if !*noCache {
		o.cache = data.DefaultSegmentCache()
	}
	parts, desc, err := e.build(o)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	res := exportResult{Dataset: *dataset, Description: desc}
	for _, k := range slices.Sorted(maps.Keys(parts)) {
		set := parts[k]
		if len(set) == 0 {
			continue
		}
		path := filepath.Join(*out, k+".jsonl")
		visibleNames(set, path, stderr)
		if err := data.WriteJSONLFile(path, set); err != nil {
			return err
		}
		du, dp, _ := psub.ValidateSet(set, -1)
		res.Files = append(res.Files, exportFile{Path: path, Instances: len(set), UnaryDim: du, PairwiseDim: dp, Labels: data.NumLabels(set)})
		fmt.Fprintf(stderr, "wrote %s (%d instances)\n", path, len(set))
	}
	res.Seconds = time.Since(start).Seconds()
	return writeJSON(stdout, res)
}
