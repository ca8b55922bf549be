package imageio

import (
	"fmt"

	"github.com/probably-submodular/crf/internal/membudget"
)

// ReadStack reads 2-D slices, in the order given, into one volume: file i
// becomes z = i. Every slice must be a single page with the same width,
// height and channel count as the first; the error names the offending file
// and what differs.
func ReadStack(paths []string) (*Volume, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("stack: no files")
	}
	var out *Volume
	for z, p := range paths {
		v, err := ReadImage(p)
		if err != nil {
			return nil, fmt.Errorf("stack slice %d: %w", z, err)
		}
		if v.Depth != 1 {
			return nil, fmt.Errorf("stack slice %d: %s: has %d pages; a stack is made of 2-D slices", z, p, v.Depth)
		}
		if out == nil {
			need := membudget.Bytes(int64(v.Width), int64(v.Height), int64(len(paths)), int64(v.Channels), 4)
			if err := membudget.Check(fmt.Sprintf("a stack of %d slices of %dx%d with %d channel(s)", len(paths), v.Width, v.Height, v.Channels), need); err != nil {
				return nil, fmt.Errorf("stack of %d files from %s: %w", len(paths), p, err)
			}
			out = NewVolume(v.Width, v.Height, len(paths), v.Channels)
		} else if v.Width != out.Width || v.Height != out.Height || v.Channels != out.Channels {
			return nil, fmt.Errorf("stack slice %d: %s: %dx%d with %d channels, but %s is %dx%d with %d channels",
				z, p, v.Width, v.Height, v.Channels, paths[0], out.Width, out.Height, out.Channels)
		}
		copy(out.Pix[z*len(v.Pix):], v.Pix)
	}
	return out, nil
}
