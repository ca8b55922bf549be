package layers

import (
	"fmt"
	"sort"
	"strings"
)

// Module is the module path the rules speak of.
const Module = "github.com/probably-submodular/crf"

// rules maps each top-level folder to the top-level folders its packages
// may import ("psub/" means psub's sub-packages, which psub's root may
// import but which may not import psub's root).
var rules = map[string][]string{
	"internal":  {"internal"},
	"psub":      {"psub", "internal"},
	"viz":       {"viz", "internal"},
	"data":      {"data", "psub", "viz", "internal"},
	"notebooks": {"notebooks", "data", "psub", "viz", "internal"},
	"scripts":   {"scripts", "notebooks", "data", "psub", "viz", "internal"},
}

// top returns the top-level folder of a package of the module ("" for a
// package outside it) and its path below the module.
func top(pkg string) (string, string) {
	rel, ok := strings.CutPrefix(pkg, Module+"/")
	if !ok {
		return "", ""
	}
	t, _, _ := strings.Cut(rel, "/")
	return t, rel
}

// Violations lists the imports of graph (package -> packages it imports,
// test files' imports included) that go against the rules, one line each,
// sorted.
func Violations(graph map[string][]string) []string {
	var out []string
	for pkg, imps := range graph {
		from, fromRel := top(pkg)
		if from == "" {
			continue
		}
		allowed, known := rules[from]
		if !known {
			out = append(out, fmt.Sprintf("%s: top-level folder %q is not one of the module's (notebooks psub viz data scripts internal)", fromRel, from))
			continue
		}
		for _, imp := range imps {
			to, toRel := top(imp)
			if to == "" || imp == pkg {
				continue
			}
			ok := false
			for _, a := range allowed {
				ok = ok || a == to
			}
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("%s imports %s: %s may import only %s", fromRel, toRel, from, strings.Join(allowed, ", ")))
			case from == "psub" && fromRel != "psub" && toRel == "psub":
				out = append(out, fmt.Sprintf("%s imports %s: psub's sub-packages are below psub, not above it", fromRel, toRel))
			}
		}
	}
	sort.Strings(out)
	return out
}
