package fetch

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/probably-submodular/crf/data"
)

// TestSourcesMapEveryFile: every checksummed file has a repository path and
// back, and the paths the data README names.
func TestSourcesMapEveryFile(t *testing.T) {
	for _, src := range Sources {
		sums, err := data.Checksums(src.Set)
		if err != nil {
			t.Fatal(err)
		}
		for f := range sums {
			r, ok := src.Remote(f)
			if !ok {
				t.Fatalf("%s/%s: no repository path", src.Set, f)
			}
			if l, ok := src.Local(r); !ok || l != f {
				t.Fatalf("%s/%s -> %s -> %q, %v", src.Set, f, r, l, ok)
			}
		}
	}
	for _, c := range []struct{ set, local, remote string }{
		{"yeast", "yeast-train.arff", "datasets/yeast-train.arff"},
		{"scene", "scene-test.arff", "datasets/scene/scene-test.arff"},
		{"tud_cows", "masks/cow-pic110-sml-lt.png", "dataset/TUDarmstadt/GTMasks/sideviews-cows2/cow-pic110-sml-lt.png"},
		{"weizmann_horse", "gray/horse001.jpg", "weizmann_horse_db/gray/horse001.jpg"},
		{"epfl_mito", "testing/labels/test_007.txt", "input/data/test/labels/test_007.txt"},
		{"epfl_mito", "testing/source_mask_test_001.png", "media/test_001 copy.png"},
	} {
		src, _ := Lookup(c.set)
		if r, _ := src.Remote(c.local); r != c.remote {
			t.Errorf("%s/%s: %q, want %q", c.set, c.local, r, c.remote)
		}
	}
	mito, _ := Lookup("epfl_mito")
	if _, ok := mito.Remote("training/masks_derived/train_001.png"); ok {
		t.Error("a derived mask has a repository path")
	}
	if _, err := Lookup("msrc"); err == nil || !strings.Contains(err.Error(), "known: yeast") {
		t.Errorf("Lookup(msrc): %v", err)
	}
}

// sharedData returns the data folder, or skips.
func sharedData(t *testing.T, sets ...string) string {
	t.Helper()
	var root string
	for _, s := range sets {
		d, err := data.Find("", s)
		if errors.Is(err, data.ErrNotFound) {
			t.Skip(err)
		}
		root = filepath.Dir(d)
	}
	return root
}

// TestSourceBytes: the sizes told to users are the data folder's.
func TestSourceBytes(t *testing.T) {
	root := sharedData(t, Names()...)
	for _, src := range Sources {
		sums, _ := data.Checksums(src.Set)
		var n int64
		for f := range sums {
			fi, err := os.Stat(filepath.Join(root, src.Set, f))
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
		}
		if n != src.Bytes {
			t.Errorf("%s: %d bytes of source files, Sources says %d", src.Set, n, src.Bytes)
		}
	}
}

// server serves a mirror folder, counting requests and Range requests; with
// noRange it answers every request with the whole file.
type server struct {
	*httptest.Server
	mu               sync.Mutex
	requests, range_ int
}

func serve(t *testing.T, dir string, noRange bool) *server {
	s := &server{}
	fs := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		if r.Header.Get("Range") != "" {
			s.range_++
		}
		s.mu.Unlock()
		if noRange {
			r.Header.Del("Range")
		}
		fs.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func closedPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func fetch(t *testing.T, opt Options, sets ...string) Report {
	t.Helper()
	var log strings.Builder
	opt.Log = &log
	rep, err := Fetch(context.Background(), opt, sets)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("log:\n%s", log.String())
	return rep
}

func TestFetchFromMirror(t *testing.T) {
	root := sharedData(t, "yeast", "scene")
	mirror := t.TempDir()
	if _, err := MakeMirror(root, mirror, []string{"yeast", "scene"}); err != nil {
		t.Fatal(err)
	}
	srv := serve(t, mirror, false)
	dir := t.TempDir()
	offline := closedPort(t)
	rep := fetch(t, Options{Dir: dir, Mirror: srv.URL, RawBase: offline}, "yeast", "scene")
	if !rep.Complete() || rep.Requests != 2 || srv.requests != 2 || rep.Downloaded < 3e6 {
		t.Fatalf("report %+v, server saw %d requests", rep, srv.requests)
	}
	for _, s := range []string{"yeast", "scene"} {
		if err := data.VerifyFiles(filepath.Join(dir, s), s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".fetch")); !os.IsNotExist(err) {
		t.Errorf("the downloaded archives were left behind: %v", err)
	}
	// Again: nothing to do, no request.
	rep = fetch(t, Options{Dir: dir, Mirror: offline, RawBase: offline}, "yeast", "scene")
	if !rep.Complete() || rep.Requests != 0 || rep.Sets[0].Present != 2 {
		t.Fatalf("second run: %+v", rep)
	}
	// A damaged file is fetched again, alone.
	if err := os.WriteFile(filepath.Join(dir, "scene", "scene-test.arff"), []byte("@relation x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = fetch(t, Options{Dir: dir, Mirror: srv.URL, RawBase: offline}, "yeast", "scene")
	if !rep.Complete() || rep.Requests != 1 || rep.Sets[1].Fetched != 1 {
		t.Fatalf("after damage: %+v", rep)
	}
	// The mirror as a folder: no request at all.
	dir2 := t.TempDir()
	rep = fetch(t, Options{Dir: dir2, Mirror: mirror, RawBase: offline}, "yeast")
	if !rep.Complete() || rep.Requests != 0 || rep.Sets[0].Route != "mirror folder" {
		t.Fatalf("mirror folder: %+v", rep)
	}
}

// TestFetchResumes: a partial archive left by an interrupted run is
// continued with a Range request, or downloaded again whole when the server
// ignores ranges; either way the files verify.
func TestFetchResumes(t *testing.T) {
	root := sharedData(t, "scene")
	mirror := t.TempDir()
	written, err := MakeMirror(root, mirror, []string{"scene"})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := os.ReadFile(written[0])
	if err != nil {
		t.Fatal(err)
	}
	src, _ := Lookup("scene")
	for _, noRange := range []bool{false, true} {
		srv := serve(t, mirror, noRange)
		dir := t.TempDir()
		part := filepath.Join(dir, ".fetch", "henrygouk_meka-metric-learning-"+src.Commit+".tar.gz.part")
		os.MkdirAll(filepath.Dir(part), 0o755)
		half := whole[:len(whole)/2]
		if noRange {
			half = append([]byte("garbage that a restart must drop"), half...)
		}
		if err := os.WriteFile(part, half, 0o644); err != nil {
			t.Fatal(err)
		}
		rep := fetch(t, Options{Dir: dir, Mirror: srv.URL, NoFallback: true}, "scene")
		if !rep.Complete() || srv.range_ != 1 {
			t.Fatalf("noRange %v: %+v, %d range requests", noRange, rep, srv.range_)
		}
		if want := int64(len(whole) - len(half)); !noRange && rep.Downloaded != want {
			t.Fatalf("resumed download took %d bytes, want the rest, %d", rep.Downloaded, want)
		}
		if noRange && rep.Downloaded != int64(len(whole)) {
			t.Fatalf("restarted download took %d bytes, want %d", rep.Downloaded, len(whole))
		}
	}
}

// TestFetchFallsBackPerFile: when the archive is not there, the files come
// one by one from the raw host, at the repository's paths.
func TestFetchFallsBackPerFile(t *testing.T) {
	root := sharedData(t, "yeast")
	src, _ := Lookup("yeast")
	raw := t.TempDir()
	for _, f := range []string{"yeast-train.arff", "yeast-test.arff"} {
		r, _ := src.Remote(f)
		p := filepath.Join(raw, src.Repo, src.Commit, r)
		os.MkdirAll(filepath.Dir(p), 0o755)
		b, _ := os.ReadFile(filepath.Join(root, "yeast", f))
		if f == "yeast-test.arff" {
			b = append(b, '\n') // damaged: must be refused
		}
		os.WriteFile(p, b, 0o644)
	}
	rawSrv := serve(t, raw, false)
	emptyMirror := serve(t, t.TempDir(), false)
	dir := t.TempDir()
	rep := fetch(t, Options{Dir: dir, Mirror: emptyMirror.URL, RawBase: rawSrv.URL}, "yeast")
	s := rep.Sets[0]
	if s.Complete() || s.Fetched != 1 || s.Missing != 1 || rep.Requests != 3 ||
		!strings.Contains(strings.Join(s.Problems, "\n"), "yeast-test.arff: sha256") {
		t.Fatalf("%+v", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "yeast", "yeast-test.arff")); !os.IsNotExist(err) {
		t.Fatalf("a file failing verification was kept: %v", err)
	}
	if err := data.VerifyFiles(filepath.Join(dir, "yeast"), "yeast", "yeast-train.arff"); err != nil {
		t.Fatal(err)
	}
}

// TestFetchOffline: nothing reachable: the set is reported incomplete after
// one request per route, and nothing is left in the data folder.
func TestFetchOffline(t *testing.T) {
	dir := t.TempDir()
	off := closedPort(t)
	rep := fetch(t, Options{Dir: dir, Mirror: off, RawBase: off}, "tud_cows")
	s := rep.Sets[0]
	if s.Complete() || s.Missing != 333 || rep.Requests != 2 || len(s.Problems) < 2 ||
		!strings.Contains(s.Problems[0], "archive: GET "+off) || !strings.Contains(s.Problems[1], "stopped") {
		t.Fatalf("%+v", rep)
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Fatalf("offline run left %s in the data folder", ents[0].Name())
	}
}

// TestDeriveMito: a folder with the 330 label files gets its 330 masks,
// each checked by its pixel sum; a wrong mask is found and made again.
func TestDeriveMito(t *testing.T) {
	root := sharedData(t, "epfl_mito")
	dir := t.TempDir()
	masks, labels := data.MitoDerivedMasks()
	for _, l := range labels {
		b, err := os.ReadFile(filepath.Join(root, "epfl_mito", l))
		if err != nil {
			t.Fatal(err)
		}
		if err := writeFile(filepath.Join(dir, "epfl_mito", l), b); err != nil {
			t.Fatal(err)
		}
	}
	src, _ := Lookup("epfl_mito")
	st, err := inspect(dir, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.derive) != 330 || len(st.need) != 331 {
		t.Fatalf("%d to derive, %d to fetch; want 330, 331", len(st.derive), len(st.need))
	}
	f := &fetcher{opt: Options{Log: &strings.Builder{}}}
	if n, err := f.derive(st); n != 330 || err != nil {
		t.Fatalf("derived %d, %v", n, err)
	}
	// A mask of other pixels is not counted; the label's twin is.
	other := filepath.Join(dir, "epfl_mito", filepath.FromSlash(masks[3]))
	if err := copyFile(filepath.Join(dir, "epfl_mito", filepath.FromSlash(masks[4])), other); err != nil {
		t.Fatal(err)
	}
	reps, err := Check(dir, []string{"epfl_mito"})
	if err != nil {
		t.Fatal(err)
	}
	if r := reps[0]; r.Missing != 332 || !strings.Contains(strings.Join(r.Problems, " "), masks[3]+": pixel sum") {
		t.Fatalf("%+v", r)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}
