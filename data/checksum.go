package data

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// The checksums of the originals ship with the code (copies of each data
// folder's SHA256SUMS), so a data folder is checked against what the project
// expects and not against sums that travel with the data.
//
// Derived files (the epfl_mito masks, rasterised here from the polygon
// labels) are checked by the sha256 of their pixels (PixelSum), listed in
// checksums/NAME.pixelsums: PNG encoders differ in bytes, not in pixels.
//
//go:embed checksums/*.sha256 checksums/*.pixelsums
var checksumFS embed.FS

// Checksums returns the expected sha256 (hex) of every file of a data set
// ("yeast", "scene", "tud_cows", "epfl_mito", "weizmann_horse"), keyed by the
// path relative to the data set's folder: the files copied from the source
// repositories (derived files: DerivedPixelSums).
func Checksums(dataset string) (map[string]string, error) {
	b, err := checksumFS.ReadFile("checksums/" + dataset + ".sha256")
	if err != nil {
		return nil, fmt.Errorf("no checksums for data set %q (known: %s)", dataset, strings.Join(knownChecksums(), ", "))
	}
	return parseSHA256SUMS(bytes.NewReader(b), dataset+".sha256")
}

// DerivedPixelSums returns the expected PixelSum of every derived file of a
// data set, keyed by its path relative to the data set's folder; empty for a
// data set without derived files.
func DerivedPixelSums(dataset string) (map[string]string, error) {
	b, err := checksumFS.ReadFile("checksums/" + dataset + ".pixelsums")
	if err != nil {
		if _, err := Checksums(dataset); err != nil {
			return nil, err
		}
		return map[string]string{}, nil
	}
	return parseSHA256SUMS(bytes.NewReader(b), dataset+".pixelsums")
}

func knownChecksums() []string {
	ents, _ := checksumFS.ReadDir("checksums")
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".sha256"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// parseSHA256SUMS reads the output format of sha256sum: "<64 hex>  <path>"
// (a '*' before the path marks binary mode and is ignored).
func parseSHA256SUMS(r io.Reader, name string) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimRight(sc.Text(), "\r")
		if s == "" {
			continue
		}
		sum, path, ok := strings.Cut(s, " ")
		path = strings.TrimPrefix(strings.TrimLeft(path, " "), "*")
		if b, err := hex.DecodeString(sum); !ok || err != nil || len(b) != sha256.Size || path == "" {
			return nil, fmt.Errorf("%s:%d: expected \"<sha256 hex>  <path>\", got %q", name, line, s)
		}
		sums[path] = strings.ToLower(sum)
	}
	return sums, sc.Err()
}

// VerifyFiles checks the named files (paths relative to dir, as in
// Checksums and DerivedPixelSums) against the expected sums of dataset,
// reading each (no cache: VerifyCached). With no files given it checks
// every original file of the data set. The error lists every missing or
// mismatching file.
func VerifyFiles(dir, dataset string, files ...string) error {
	if len(files) == 0 {
		sums, err := Checksums(dataset)
		if err != nil {
			return err
		}
		files = slices.Sorted(maps.Keys(sums))
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, filepath.FromSlash(f))
	}
	return verifyCached("", dir, dataset, paths)
}

// firstLines joins the first ten of a list of problems, one a line.
func firstLines(bad []string) string {
	const show = 10
	msg := strings.Join(bad[:min(len(bad), show)], "\n  ")
	if len(bad) > show {
		msg += fmt.Sprintf("\n  ... and %d more", len(bad)-show)
	}
	return msg
}

// FileSHA256 is the sha256 (hex) of a file's bytes, as data/checksums
// lists them.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
