package modroot

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Path is the module path whose go.mod marks the root.
const Path = "github.com/probably-submodular/crf"

// Is reports whether dir holds the go.mod of module Path.
func Is(dir string) bool {
	f, err := os.Open(filepath.Join(dir, "go.mod"))
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == Path
		}
	}
	return false
}

// Find walks up from dir ("" means the working directory) to the first
// directory that Is the module root, and returns it as an absolute path.
func Find(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("module root: working directory: %w", err)
		}
		dir = wd
	}
	start, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for d := start; ; {
		if Is(d) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no go.mod of module %s in %s or any parent directory", Path, start)
		}
		d = parent
	}
}
