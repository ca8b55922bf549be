package layers

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/modroot"
)

// TestModule checks every package of the module, test files included,
// against the rules.
func TestModule(t *testing.T) {
	root, err := modroot.Find("")
	if err != nil {
		t.Fatal(err)
	}
	touchSources(t, root)
	cmd := exec.Command("go", "list", "-e", "-f", `{{.ImportPath}} {{join .Imports " "}} {{join .TestImports " "}} {{join .XTestImports " "}}`, "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v\n%s", root, err, stderr.String())
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 0 {
			graph[f[0]] = append(graph[f[0]], f[1:]...)
		}
	}
	for _, want := range []string{"psub", "viz", "data", "internal/runenv"} {
		if _, ok := graph[Module+"/"+want]; !ok {
			t.Fatalf("go list did not list %s (listed %d packages): the check would prove nothing", want, len(graph))
		}
	}
	for _, v := range Violations(graph) {
		t.Error(v)
	}
}

// touchSources stats every Go file and go.mod of the module, so that go
// test's cache, which sees only what this process opens or stats, not what
// go list reads, reruns the test when a source changes.
func touchSources(t *testing.T, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "out" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".go") || d.Name() == "go.mod") {
			_, err = os.Stat(p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestViolations shows that each rule the issue names can fail.
func TestViolations(t *testing.T) {
	m := func(p string) string { return Module + "/" + p }
	clean := map[string][]string{
		m("psub"):               {m("psub/qp"), m("internal/safefile"), "fmt"},
		m("psub/qp"):            {"math"},
		m("viz"):                {m("viz/chart"), m("internal/runenv"), "github.com/go-echarts/go-echarts/v2/charts"},
		m("data"):               {m("psub"), m("viz/chart")},
		m("notebooks/cows"):     {m("data"), m("psub"), m("viz")},
		m("scripts/site"):       {m("viz"), m("data")},
		m("internal/runenv"):    {m("internal/modroot")},
		"example.com/other/viz": {"example.com/other/data"},
	}
	if v := Violations(clean); v != nil {
		t.Fatalf("a one-way graph: %q", v)
	}
	for _, c := range []struct{ from, to, want string }{
		{"viz", "data/runenv", "viz imports data/runenv: viz may import only viz, internal"},
		{"viz/chart", "psub", "viz/chart imports psub"},
		{"psub", "data", "psub imports data"},
		{"psub/qp", "psub", "psub/qp imports psub: psub's sub-packages"},
		{"psub", "viz", "psub imports viz"},
		{"data", "notebooks/cows", "data imports notebooks/cows"},
		{"data/protocol", "scripts/site", "data/protocol imports scripts/site"},
		{"internal/runenv", "data", "internal/runenv imports data"},
		{"notebooks/cows", "scripts/psub", "notebooks/cows imports scripts/psub"},
		{"extra/x", "psub", `extra/x: top-level folder "extra"`},
	} {
		g := map[string][]string{}
		for k, v := range clean {
			g[k] = v
		}
		g[m(c.from)] = append(append([]string(nil), g[m(c.from)]...), m(c.to))
		v := Violations(g)
		if len(v) != 1 || !strings.HasPrefix(v[0], c.want) {
			t.Errorf("%s -> %s: violations %q, want one starting %q", c.from, c.to, v, c.want)
		}
	}
}
