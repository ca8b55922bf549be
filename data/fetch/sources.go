package fetch

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Source is the public home of one data set's files: a GitHub repository at
// a pinned commit, and where each of the data set's files sits in it.
type Source struct {
	Set    string // data set, a sub-folder of the data folder ("yeast")
	Repo   string // owner/name on GitHub
	Commit string // the pinned commit (40 hex digits)
	// Rules map the data set's paths to the repository's: a rule whose
	// Local ends in "/" maps a folder, any other one file.
	Rules []Rule
	// Bytes is the size of the data set's source files (not of the
	// repository's archive, which holds other files too), measured on the
	// data folder; it tells a user what a fetch brings.
	Bytes int64
	// Derived names the derived files' kind ("" when none): they are made
	// here from the source files after the fetch (data.DeriveMitoMask).
	Derived string
}

// Rule maps one local path (or folder, ending in "/") to a repository path.
type Rule struct{ Local, Remote string }

// Sources lists the five data sets' homes (the data README gives each
// one's history and cross-checks).
var Sources = []Source{
	{Set: "yeast", Repo: "li9i/mlaslcs", Commit: "088ae02c572fae6ef7ea9f1bc274aca2f075da38",
		Rules: []Rule{{"", "datasets/"}}, Bytes: 2419632},
	{Set: "scene", Repo: "henrygouk/meka-metric-learning", Commit: "6bf527b5e7b86f10af777816a711ff96da070c5c",
		Rules: []Rule{{"", "datasets/scene/"}}, Bytes: 6218710},
	{Set: "tud_cows", Repo: "nawel/structVision", Commit: "1e6d99dc9e40c4a3bd8bc418d7b37fdf143dafd5",
		Rules: []Rule{
			{"images/", "dataset/TUDarmstadt/PNGImages/sideviews-cows2/"},
			{"masks/", "dataset/TUDarmstadt/GTMasks/sideviews-cows2/"},
			{"annotations/", "dataset/TUDarmstadt/Annotations/sideviews-cows2/"},
		}, Bytes: 13413934},
	{Set: "weizmann_horse", Repo: "shenshutao/image_segmentation", Commit: "2653401d6ea617026895aac17059eb57e017abcb",
		Rules: []Rule{{"", "weizmann_horse_db/"}}, Bytes: 5788658},
	{Set: "epfl_mito", Repo: "LeoUtas/Mitochondria_segmentation_research_YOLOv8", Commit: "4814133c4ecadfa84e3ac6d550befd13e04a87e7",
		Rules: []Rule{
			{"training/images/", "input/data/train/images/"},
			{"training/labels/", "input/data/train/labels/"},
			{"testing/images/", "input/data/test/images/"},
			{"testing/labels/", "input/data/test/labels/"},
			{"testing/source_mask_test_001.png", "media/test_001 copy.png"},
		}, Bytes: 214927790, Derived: "masks rasterised from the polygon labels"},
}

// Lookup returns the source of a data set.
func Lookup(set string) (Source, error) {
	if i := slices.IndexFunc(Sources, func(s Source) bool { return s.Set == set }); i >= 0 {
		return Sources[i], nil
	}
	return Source{}, fmt.Errorf("unknown data set %q (known: %s)", set, strings.Join(Names(), ", "))
}

// Names lists the data sets in Sources' order.
func Names() []string {
	var n []string
	for _, s := range Sources {
		n = append(n, s.Set)
	}
	return n
}

// Remote returns the repository path of a local file, false when no rule
// maps it.
func (s Source) Remote(local string) (string, bool) { return s.translate(local, false) }

// Local returns the local path of a repository path, false when no rule
// maps it (the caller keeps only the data set's files).
func (s Source) Local(remote string) (string, bool) { return s.translate(remote, true) }

// translate applies the first rule that matches p, from local to remote
// paths or back.
func (s Source) translate(p string, toLocal bool) (string, bool) {
	for _, r := range s.Rules {
		from, to := r.Local, r.Remote
		if toLocal {
			from, to = to, from
		}
		if !r.folder() {
			if p == from {
				return to, true
			}
		} else if rest, ok := strings.CutPrefix(p, from); ok && rest != "" {
			return to + rest, true
		}
	}
	return "", false
}

func (r Rule) folder() bool { return r.Local == "" || strings.HasSuffix(r.Local, "/") }

// ArchivePath is the archive's path below a mirror's base, as GitHub serves
// it: OWNER/NAME/archive/COMMIT.tar.gz.
func (s Source) ArchivePath() string { return s.Repo + "/archive/" + s.Commit + ".tar.gz" }

// ArchiveRoot is the folder every path of GitHub's archive sits in:
// NAME-COMMIT/.
func (s Source) ArchiveRoot() string { return path.Base(s.Repo) + "-" + s.Commit + "/" }

// Short names the source for people: owner/name@commit (7 digits).
func (s Source) Short() string { return s.Repo + "@" + s.Commit[:7] }
