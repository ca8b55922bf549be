package outguard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheck builds, in a temporary folder, every way an output can be an
// input, and some ways it is not.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(p string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("input"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	write("d/in.jsonl")
	write("d/other.jsonl")
	if err := os.Link("d/in.jsonl", "hard.jsonl"); err != nil {
		t.Fatal(err)
	}
	link("d/in.jsonl", "sym.jsonl")                     // a link to the input
	link(filepath.Join(dir, "out.json"), "inlink.json") // an input that is a link to the output
	write("out.json")
	link("d", "dlink")                      // a link to the input folder
	link("d/missing.json", "dangling.json") // a link to nothing
	in := Path{Flag: "-train", Path: "d/in.jsonl"}
	folder := Path{Flag: "-data", Path: "d", Dir: true}
	cases := []struct {
		name   string
		out    string
		in     Path
		refuse string // "" when allowed, else a part of the reason
	}{
		{"same path", "d/in.jsonl", in, "same file"},
		{"dot spelling", "./d/in.jsonl", in, "same file"},
		{"dotdot spelling", "d/../d/in.jsonl", in, "same file"},
		{"absolute spelling", filepath.Join(dir, "d/in.jsonl"), in, "same file"},
		{"hard link", "hard.jsonl", in, "hard or symbolic link"},
		{"output is a link to the input", "sym.jsonl", in, "same file"},
		{"through a linked folder", "dlink/in.jsonl", in, "same file"},
		{"input is a link to the output", "out.json", Path{Flag: "-model", Path: "inlink.json"}, "same file"},
		{"inside an input folder", "d/new.json", folder, "inside the folder"},
		{"inside it through a link", "dlink/sub/new.json", folder, "inside the folder"},
		{"the input folder itself", "d", folder, "is the folder"},
		{"a link to the input folder", "dlink", folder, "is the folder"},
		{"dangling link into the folder", "dangling.json", folder, "inside the folder"},
		{"another file", "d/other.jsonl", in, ""},
		{"a new file", "new.json", in, ""},
		{"beside the folder", "dd/new.json", folder, ""},
		{"a folder named like the input's prefix", "d2/x", folder, ""},
		{"empty output", "", in, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := Path{Flag: "-o", Path: c.out}
			err := Check([]Path{out}, []Path{{Flag: "-test"}, c.in})
			if c.refuse == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ge *Error
			if !errors.As(err, &ge) {
				t.Fatalf("Check(-o %s, %s) = %v, want a refusal", c.out, c.in, err)
			}
			msg := err.Error()
			for _, want := range []string{c.refuse, "-o " + c.out, c.in.Flag + " " + c.in.Path, "outputs never overwrite inputs"} {
				if !strings.Contains(msg, want) {
					t.Errorf("message %q lacks %q", msg, want)
				}
			}
		})
	}
}

func TestResolve(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(dir, "loop")); err != nil {
		t.Fatal(err)
	}
	if _, err := resolve(filepath.Join(dir, "loop")); err == nil {
		t.Error("a link cycle resolved")
	}
	got, err := resolve(filepath.Join(dir, "a/b/../c"))
	if err != nil || got != filepath.Join(dir, "a/c") {
		t.Errorf("Resolve of a missing path: %q %v", got, err)
	}
}

// TestCheckDistinctOutputs: two outputs at one path, in any spelling and
// whether or not it exists yet, are refused before any work; distinct
// outputs, and a file inside an output folder, are not.
func TestCheckDistinctOutputs(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x")
	for _, c := range []struct {
		name string
		outs []Path
		bad  bool
	}{
		{"same new path", []Path{{Flag: "-o", Path: x}, {Flag: "-checkpoint", Path: x, Dir: true}}, true},
		{"two spellings", []Path{{Flag: "-results", Path: x}, {Flag: "-slurm", Path: filepath.Join(dir, ".", "y", "..", "x"), Dir: true}}, true},
		{"distinct", []Path{{Flag: "-o", Path: x}, {Flag: "-checkpoint", Path: filepath.Join(dir, "ck"), Dir: true}}, false},
		{"file inside output folder", []Path{{Flag: "-o", Path: filepath.Join(dir, "ck", "m.json")}, {Flag: "-checkpoint", Path: filepath.Join(dir, "ck"), Dir: true}}, false},
		{"one empty", []Path{{Flag: "-o", Path: x}, {Flag: "-checkpoint", Path: ""}}, false},
	} {
		err := Check(c.outs, nil)
		var e *Error
		if got := errors.As(err, &e) && e.Both; got != c.bad {
			t.Errorf("%s: err = %v, want refused %v", c.name, err, c.bad)
		}
		if c.bad && !strings.Contains(err.Error(), "two outputs cannot share a path") {
			t.Errorf("%s: message %q", c.name, err)
		}
	}
}
