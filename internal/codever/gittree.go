package codever

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gitTree is the tree of a commit of a checkout, read through git: the
// listing from git ls-tree, the bytes of its Go files and go.mod read at
// once by git cat-file --batch, any other file's (an embedded one) by git
// cat-file on demand. It implements source.
type gitTree struct {
	root, commit string
	dirs         map[string][]fs.DirEntry // slash dir ("." for the root) → entries
	files        map[string][]byte        // the Go files and go.mod
}

func git(ctx context.Context, root string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-optional-locks", "-C", root}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	cmd.Stdin = stdin
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// newGitTree reads the tree of commit (a full hash) of the checkout at root.
func newGitTree(root, commit string) (*gitTree, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	list, err := git(ctx, root, nil, "ls-tree", "-r", "-z", "--name-only", commit, ".")
	if err != nil {
		return nil, err
	}
	t := &gitTree{root: root, commit: commit, dirs: map[string][]fs.DirEntry{}, files: map[string][]byte{}}
	seen := map[string]bool{}
	var want []string
	for _, p := range strings.Split(string(list), "\x00") {
		if p == "" {
			continue
		}
		if p == "go.mod" || hashedFile(p) {
			want = append(want, p)
		}
		// Every folder on the way is an entry of its parent.
		for child, isDir := p, false; ; isDir = true {
			parent := path.Dir(child)
			if !seen[child] {
				seen[child] = true
				t.dirs[parent] = append(t.dirs[parent], treeEntry{name: path.Base(child), dir: isDir})
			}
			if parent == "." {
				break
			}
			child = parent
		}
	}
	for _, es := range t.dirs {
		slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	}
	var req bytes.Buffer
	for _, p := range want {
		fmt.Fprintf(&req, "%s:./%s\n", commit, p)
	}
	out, err := git(ctx, root, &req, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	rd := bufio.NewReader(bytes.NewReader(out))
	for _, p := range want {
		b, err := readBlob(rd)
		if err != nil {
			return nil, fmt.Errorf("git cat-file %s: %w", p, err)
		}
		t.files[p] = b
	}
	return t, nil
}

// readBlob reads one answer of git cat-file --batch.
func readBlob(rd *bufio.Reader) ([]byte, error) {
	head, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	f := strings.Fields(head)
	if len(f) != 3 || f[1] != "blob" {
		return nil, fs.ErrNotExist
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("header %q", head)
	}
	b := make([]byte, n+1) // the content and a newline
	if _, err := io.ReadFull(rd, b); err != nil {
		return nil, err
	}
	return b[:n], nil
}

func (t *gitTree) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
}

// Stat reports the files and folders of the tree (fs.Glob asks for a
// pattern without wildcards).
func (t *gitTree) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		return treeEntry{name: ".", dir: true}, nil
	}
	for _, e := range t.dirs[path.Dir(name)] {
		if e.Name() == path.Base(name) {
			return e.(treeEntry), nil
		}
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (t *gitTree) ReadDir(name string) ([]fs.DirEntry, error) {
	es, ok := t.dirs[name]
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return es, nil
}

func (t *gitTree) ReadFile(name string) ([]byte, error) {
	if b, ok := t.files[name]; ok {
		return b, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := git(ctx, t.root, strings.NewReader(t.commit+":./"+name+"\n"), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	b, err := readBlob(bufio.NewReader(bytes.NewReader(out)))
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return b, nil
}

// treeEntry is a file or folder of a gitTree.
type treeEntry struct {
	name string
	dir  bool
}

func (e treeEntry) Name() string { return e.name }
func (e treeEntry) IsDir() bool  { return e.dir }
func (e treeEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e treeEntry) Info() (fs.FileInfo, error) { return e, nil }

// A treeEntry is its own fs.FileInfo, without size or time.
func (e treeEntry) Size() int64        { return 0 }
func (e treeEntry) Mode() fs.FileMode  { return e.Type() }
func (e treeEntry) ModTime() time.Time { return time.Time{} }
func (e treeEntry) Sys() any           { return nil }
