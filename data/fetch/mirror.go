package fetch

import (
	"archive/tar"
	"compress/gzip"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/probably-submodular/crf/data"
	"github.com/probably-submodular/crf/internal/safefile"
)

// MakeMirror writes into out, for each set, the archive GitHub would serve
// for its source (OWNER/NAME/archive/COMMIT.tar.gz, every path below
// NAME-COMMIT/), holding the set's source files taken from the data folder
// dir, in the repository's layout. Every file must verify first. The
// archives are the same for the same files (fixed times and order), and
// hold only the data set's files, not the rest of the repository. It
// returns the archives written.
func MakeMirror(dir, out string, sets []string) ([]string, error) {
	var written []string
	for _, s := range sets {
		src, err := Lookup(s)
		if err != nil {
			return written, err
		}
		if err := data.VerifyFiles(filepath.Join(dir, s), s); err != nil {
			return written, fmt.Errorf("mirror of %s: %w", s, err)
		}
		sums, _ := data.Checksums(s)
		files := slices.Sorted(maps.Keys(sums))
		dest := filepath.Join(out, filepath.FromSlash(src.ArchivePath()))
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return written, err
		}
		err = safefile.Write(dest, func(w io.Writer) error {
			gz, err := gzip.NewWriterLevel(w, gzip.BestSpeed)
			if err != nil {
				return err
			}
			tw := tar.NewWriter(gz)
			mtime := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
			for _, f := range files {
				remote, ok := src.Remote(f)
				if !ok {
					return fmt.Errorf("%s/%s: no path in %s", s, f, src.Short())
				}
				b, err := os.ReadFile(filepath.Join(dir, s, filepath.FromSlash(f)))
				if err != nil {
					return err
				}
				h := &tar.Header{Name: src.ArchiveRoot() + remote, Mode: 0o644, Size: int64(len(b)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
				if err := tw.WriteHeader(h); err != nil {
					return err
				}
				if _, err := tw.Write(b); err != nil {
					return err
				}
			}
			if err := tw.Close(); err != nil {
				return err
			}
			return gz.Close()
		})
		if err != nil {
			return written, fmt.Errorf("mirror of %s: %w", s, err)
		}
		written = append(written, dest)
	}
	return written, nil
}
