package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/probably-submodular/crf/internal/safefile"
)

// pageStyle is what the site adds to nbconvert's style: code and output
// lines wrap at the cell's edge (nbconvert's classic style neither wraps
// nor scrolls them, so a long line was cut at the right edge of the page).
const pageStyle = `<style id="psub-site-style">
div.input_area pre, div.output_area pre, div.output_subarea pre, .highlight pre {
  white-space: pre-wrap; overflow-wrap: anywhere;
}
</style>
`

// StylePage returns the nbconvert page b with pageStyle before its
// </head>, once: a page that has it already is returned as it is.
func StylePage(b []byte) ([]byte, error) {
	if bytes.Contains(b, []byte(`id="psub-site-style"`)) {
		return b, nil
	}
	i := bytes.Index(b, []byte("</head>"))
	if i < 0 {
		return nil, fmt.Errorf("no </head> to put the site's style before")
	}
	out := make([]byte, 0, len(b)+len(pageStyle))
	out = append(append(append(out, b[:i]...), pageStyle...), b[i:]...)
	return out, nil
}

// stylePages applies StylePage to each page file in place.
func stylePages(paths []string) error {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		s, err := StylePage(b)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := safefile.WriteBytes(p, s); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
	}
	return nil
}
