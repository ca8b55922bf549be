package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/data"
)

// spelling makes, from an input file, another name for it: the path
// itself, a relative spelling, a hard link or a symbolic link (in both
// directions: "symlink-in" replaces the input by a link to a new name,
// which the output then uses).
type spelling func(t *testing.T, dir, input string) (output string)

var spellings = map[string]spelling{
	"same path": func(t *testing.T, dir, input string) string { return input },
	"relative spelling": func(t *testing.T, dir, input string) string {
		return "sub/.././" + filepath.Base(input) // relative to dir, the working directory
	},
	"hard link": func(t *testing.T, dir, input string) string {
		o := filepath.Join(dir, "hard-"+filepath.Base(input))
		if err := os.Link(input, o); err != nil {
			t.Fatal(err)
		}
		return o
	},
	"symlink to the input": func(t *testing.T, dir, input string) string {
		o := filepath.Join(dir, "link-"+filepath.Base(input))
		if err := os.Symlink(filepath.Base(input), o); err != nil {
			t.Fatal(err)
		}
		return o
	},
	"input is a symlink to the output": func(t *testing.T, dir, input string) string {
		o := filepath.Join(dir, "real-"+filepath.Base(input))
		if err := os.Rename(input, o); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(o, input); err != nil {
			t.Fatal(err)
		}
		return o
	},
}

// guardCase is a command whose output flag is aimed at one of its inputs.
type guardCase struct {
	name   string
	inputs []string                             // files made with distinct content
	args   func(in []string, o string) []string // the command line
	target int                                  // the input the output aims at
}

func guardCases() []guardCase {
	return []guardCase{
		{"train -o = -train", []string{"train.jsonl", "test.jsonl"},
			func(in []string, o string) []string {
				return []string{"train", "-train", in[0], "-test", in[1], "-o", o}
			}, 0},
		{"train -o = -test", []string{"train.jsonl", "test.jsonl"},
			func(in []string, o string) []string {
				return []string{"train", "-train", in[0], "-test", in[1], "-o", o}
			}, 1},
		{"train -checkpoint = -train", []string{"train.jsonl"},
			func(in []string, o string) []string { return []string{"train", "-train", in[0], "-checkpoint", o} }, 0},
		{"predict -o = -data", []string{"model.json", "data.jsonl"},
			func(in []string, o string) []string {
				return []string{"predict", "-model", in[0], "-data", in[1], "-o", o}
			}, 1},
		{"predict -o = -model", []string{"model.json", "data.jsonl"},
			func(in []string, o string) []string {
				return []string{"predict", "-model", in[0], "-data", in[1], "-o", o}
			}, 0},
		{"slic -o = IMAGE", []string{"in.png"},
			func(in []string, o string) []string { return []string{"slic", in[0], "-o", o} }, 0},
		{"segment predict -o = -model", []string{"seg.json", "imgs"},
			func(in []string, o string) []string {
				return []string{"segment", "predict", "-model", in[0], "-images", in[1], "-o", o}
			}, 0},
		{"protocol -merge -results = SHARD_FILE", []string{"shard-1.jsonl", "shard-2.jsonl"},
			func(in []string, o string) []string {
				return []string{"protocol", "cows", "-profile", "tiny", "-merge", "-results", o, in[0], in[1]}
			}, 1},
	}
}

// TestOutputsNeverOverwriteInputs aims every output flag at an input in
// every spelling: exit 2 naming both, before any work, the input byte for
// byte as it was.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	for _, c := range guardCases() {
		for sname, spell := range spellings {
			t.Run(c.name+"/"+sname, func(t *testing.T) {
				dir := t.TempDir()
				t.Chdir(dir)
				if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
					t.Fatal(err)
				}
				var in [][]byte
				var paths []string
				for i, name := range c.inputs {
					p := filepath.Join(dir, name)
					b := []byte(strings.Repeat(name, i+3) + "\n")
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
					in, paths = append(in, b), append(paths, p)
				}
				o := spell(t, dir, paths[c.target])
				args := c.args(paths, o)
				var out, errb bytes.Buffer
				code := run(args, &out, &errb)
				msg := errb.String()
				if code != 2 || !strings.Contains(msg, "outputs never overwrite inputs") || !strings.Contains(msg, o) {
					t.Errorf("psub %s: exit %d, stderr %q; want 2 and a refusal naming %s", strings.Join(args, " "), code, msg, o)
				}
				for i, p := range paths {
					if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, in[i]) {
						t.Errorf("input %s changed (%v)", p, err)
					}
				}
			})
		}
	}
}

// TestOutputsNotInsideDataFolders points -o, -results, -models, -dir and
// -slurm into the data folder ($PSUB_DATA), directly and through a link.
func TestOutputsNotInsideDataFolders(t *testing.T) {
	root := t.TempDir()
	dataDir := filepath.Join(root, "data")
	if err := os.MkdirAll(filepath.Join(dataDir, "tud_cows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dataDir, filepath.Join(root, "dlink")); err != nil {
		t.Fatal(err)
	}
	t.Setenv(data.EnvVar, dataDir)
	for _, args := range [][]string{
		{"export", "-dataset", "cows", "-o", filepath.Join(dataDir, "out")},
		{"export", "-dataset", "cows", "-o", dataDir},
		{"export", "-dataset", "cows", "-o", filepath.Join(root, "dlink", "tud_cows")},
		{"export", "-dataset", "cows", "-data", filepath.Join(root, "elsewhere"), "-o", filepath.Join(root, "elsewhere", "x")},
		{"protocol", "cows", "-profile", "tiny", "-results", filepath.Join(dataDir, "tud_cows", "r.jsonl")},
		{"protocol", "cows", "-profile", "tiny", "-results", filepath.Join(root, "r.jsonl"), "-models", filepath.Join(root, "dlink", "m")},
		{"protocol", "cows", "-profile", "tiny", "-results", filepath.Join(root, "r.jsonl"), "-checkpoints", filepath.Join(dataDir, "c")},
		{"protocol", "all", "-profile", "tiny", "-dir", filepath.Join(dataDir, "all")},
		{"protocol", "cows", "-profile", "tiny", "-slurm", filepath.Join(dataDir, "slurm")},
	} {
		var out, errb bytes.Buffer
		code := run(args, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), "outputs never overwrite inputs") {
			t.Errorf("psub %s: exit %d, stderr %q; want 2 and a refusal", strings.Join(args, " "), code, errb.String())
		}
	}
	entries, _ := os.ReadDir(dataDir)
	if len(entries) != 1 {
		t.Errorf("the data folder holds %d entries, want only tud_cows", len(entries))
	}
}

// TestSymlinkedOutputWrittenThrough runs slic with -o a symbolic link: the
// link stays, and its target gets the label map.
func TestSymlinkedOutputWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 16, 12))
	for y := range 12 {
		for x := range 16 {
			img.Set(x, y, color.RGBA{uint8(x * 16), uint8(y * 20), 0, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	in, target, link := filepath.Join(dir, "in.png"), filepath.Join(dir, "labels.png"), filepath.Join(dir, "link.png")
	if err := os.WriteFile(in, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("labels.png", link); err != nil {
		t.Fatal(err)
	}
	runOK(t, "slic", "-n", "4", in, "-o", link)
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("-o %s is no longer a symbolic link (%v)", link, err)
	}
	f, err := os.Open(target)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatalf("the link's target does not hold the label PNG: %v", err)
	}
}

// TestSegmentOutputsOutsideImageFolders: psub segment writes neither its
// model nor its masks into the folders of images and masks it reads (a
// predicted STEM.png would replace an input STEM.png).
func TestSegmentOutputsOutsideImageFolders(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, d := range []string{"imgs", "masks"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile("seg.json", []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"segment", "predict", "-model", "seg.json", "-images", "imgs", "-o", "imgs"},
		{"segment", "predict", "-model", "seg.json", "-images", "imgs", "-o", "./sub/../imgs"},
		{"segment", "predict", "-model", "seg.json", "-images", "imgs", "-masks", "masks", "-o", "masks/pred"},
		{"segment", "train", "-images", "imgs", "-o", "imgs/model.json"},
		{"segment", "train", "-images", "imgs", "-masks", "masks", "-o", "out.json", "-checkpoint", "masks"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "outputs never overwrite inputs") {
			t.Errorf("psub %s: exit %d, stderr %q; want 2 and a refusal", strings.Join(args, " "), code, errb.String())
		}
		if _, err := os.Stat("imgs/model.json"); err == nil {
			t.Fatal("a model was written into -images")
		}
	}
}
