package data

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
)

// verifiedEntry is what the verification cache knows of one file: its
// sha256 matched the expected sum when it had this size and these times.
type verifiedEntry struct {
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime_ns"`
	CTime  int64  `json:"ctime_ns,omitempty"` // status change time (Linux); 0 elsewhere
	SHA256 string `json:"sha256"`
}

// verifiedCacheVersion guards the cache file's layout.
const verifiedCacheVersion = 1

type verifiedCache struct {
	Version int                      `json:"version"`
	Files   map[string]verifiedEntry `json:"files"` // by absolute path
}

// DefaultVerifiedCache is the folder of the verification caches,
// out/cache/verified under the module root (see OutDir).
func DefaultVerifiedCache() string { return filepath.Join(OutDir(), "cache", "verified") }

// VerifyCached checks files (paths under dir, the folder of data set
// dataset) against the sums that ship with the code (Checksums), once per
// file version: a file that passed keeps passing, without being read again,
// while its size, modification time and status change time are those it
// passed with (a cache per data set in DefaultVerifiedCache). A changed or
// swapped file is read and hashed again; a mismatch is an error naming the
// file, the expected sum and the one found, and how to restore the data
// set. Every loader of the data sets calls it on the files it reads.
func VerifyCached(dir, dataset string, files ...string) error {
	return verifyCached(DefaultVerifiedCache(), dir, dataset, files)
}

// verifyCached is VerifyCached with the cache in cacheDir ("": none).
func verifyCached(cacheDir, dir, dataset string, files []string) error {
	sums, err := Checksums(dataset)
	if err != nil {
		return err
	}
	// Derived files (the mito masks) are checked by the sum of their
	// pixels: PNG encoders differ in bytes, not in pixels.
	derived, err := DerivedPixelSums(dataset)
	if err != nil {
		return err
	}
	cachePath := "" // no cache: every file is read
	if cacheDir != "" {
		cachePath = filepath.Join(cacheDir, dataset+".json")
	}
	cache := readVerifiedCache(cachePath)
	changed := false
	var bad []string
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			return fmt.Errorf("verify %s: %s is not inside the data set folder %s", dataset, f, dir)
		}
		rel = filepath.ToSlash(rel)
		want, ok := sums[rel]
		sum, what := FileSHA256, "sha256"
		if !ok {
			want, ok = derived[rel]
			sum, what = PNGPixelSum, "pixel sum"
		}
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: not a file of data set %s (no sha256 for %s)", f, dataset, rel))
			continue
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return err
		}
		st, err := os.Stat(f)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		now := verifiedEntry{Size: st.Size(), MTime: st.ModTime().UnixNano(), CTime: changeTime(st), SHA256: want}
		if cache.Files[abs] == now {
			continue
		}
		got, err := sum(f)
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if got != want {
			bad = append(bad, fmt.Sprintf("%s: %s %s, expected %s", f, what, got, want))
			continue
		}
		cache.Files[abs] = now
		changed = true
	}
	if changed && cachePath != "" {
		// A cache that cannot be written costs a re-read next time, not a
		// wrong answer: its error is not the caller's.
		_ = os.MkdirAll(cacheDir, 0o755)
		_ = safefile.Write(cachePath, func(w io.Writer) error { return json.NewEncoder(w).Encode(cache) })
	}
	if len(bad) > 0 {
		return fmt.Errorf("data set %s in %s: %d file(s) differ from the originals (their sums ship in data/checksums):\n  %s\nrestore them with scripts/fetch-data %s", dataset, dir, len(bad), firstLines(bad), dataset)
	}
	return nil
}

// readVerifiedCache reads a cache file; a missing or unreadable one is an
// empty cache (everything is hashed again).
func readVerifiedCache(path string) *verifiedCache {
	c := &verifiedCache{Version: verifiedCacheVersion, Files: map[string]verifiedEntry{}}
	b, err := os.ReadFile(path)
	if err != nil {
		return c
	}
	var got verifiedCache
	if json.Unmarshal(b, &got) != nil || got.Version != verifiedCacheVersion || got.Files == nil {
		return c
	}
	return &got
}

// verifySelected verifies the image/mask pairs of a 2-D data set that a
// build reads (those of idx).
func verifySelected(dir, dataset string, images, masks []string, idx []int) error {
	files := make([]string, 0, 2*len(idx))
	for _, j := range idx {
		files = append(files, images[j], masks[j])
	}
	return VerifyCached(dir, dataset, files...)
}
