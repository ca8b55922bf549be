// Command psub trains and applies probably submodular CRFs from the command
// line. Every subcommand prints one JSON object on stdout for machines and
// writes progress to stderr. Exit status: 0 on success, 1 when the work
// fails, 2 for a bad command line, 3 for a bug (an unexpected panic). A
// fatal out-of-memory of Go's runtime exits 2 too (the runtime's exit code,
// not ours): the memory budget (internal/membudget) refuses the sizes that
// files declare before they are allocated, so that only a budget set above
// what the process can hold reaches it.
//
// Outputs never overwrite inputs: an output flag aimed at an input (in any
// spelling, or through a hard or symbolic link) or into a folder the
// command reads is refused before any work (guard.go, internal/outguard),
// and a symbolic link as output is written through (data/FORMATS.md).
//
//	go run ./scripts/psub help
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/probably-submodular/crf/internal/panics"
)

// version is the version of the psub command and library.
const version = "0.1.0"

// command is one subcommand: run parses args and writes its JSON result.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands lists the subcommands; each capability adds one entry.
func commands() map[string]command {
	return map[string]command{
		"version":  {"print the version as JSON", runVersion},
		"train":    {"train a CRF on JSON Lines graphs; print accuracies and the trace totals", runTrain},
		"model":    {"check a model or segmenter file and its seal; -reseal accepts a deliberate edit", runModel},
		"predict":  {"label JSON Lines graphs with a trained model; score them when they carry labels", runPredict},
		"export":   {"write a built data set as JSON Lines graphs", runExport},
		"slic":     {"segment an image into SLIC superpixels, write a 16-bit label PNG", runSlic},
		"maxflow":  {"max-flow/min-cut of a DIMACS file (Boykov–Kolmogorov), with timings", runMaxflow},
		"fetch":    {"get the data sets (one archive per source repository, or a mirror), verify them, derive the mito masks", runFetch},
		"segment":  {"train a segmenter on a folder of images and masks (segment train), or apply one (segment predict)", runSegment},
		"protocol": {"run one of the paper's protocols (or a shard of it), merge shard files, list them", runProtocol},
		"study":    {"run one of the notebooks' difference studies (cows-counts, retina-differences, ...) into its results file", runStudy},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		usage(stdout, cmds)
		return 0
	}
	if args[0] == "help" {
		switch {
		case len(args) == 1 || (len(args) == 2 && isHelpFlag(args[1])):
			usage(stdout, cmds)
			return 0
		case len(args) == 2:
			if _, ok := cmds[args[1]]; ok {
				return run([]string{args[1], "-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "psub help: unknown command %q\n", args[1])
		default:
			fmt.Fprintf(stderr, "psub help: want at most one command, got %q\n", args[1:])
		}
		usage(stderr, cmds)
		return 2
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "psub: unknown command %q\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	return runCommand(args[0], c, args[1:], stdout, stderr)
}

// exitBug is the exit status of an unexpected panic: a bug of psub, not of
// the command line (2) or the data (1).
const exitBug = 3

// testPanicEnv, when set to "main" or "worker", makes the command panic in
// its own goroutine or in a worker goroutine before its work: the tests of
// the built binary check the report and the exit status with it.
const testPanicEnv = "PSUB_TEST_PANIC"

// runCommand runs c and maps its outcome to the exit status. It is the one
// place that recovers a panic (raised in a worker goroutine too: those run
// under internal/panics, which raises it here): the command exits 3 with
// the panic's value and where it happened, asking for a report (a fatal
// error of the Go runtime cannot be recovered: see the package's doc).
func runCommand(name string, c command, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			e := panics.Caught(r)
			fmt.Fprintf(stderr, "psub %s: internal error (a bug in psub, not in your input): %v\n  at %s\n"+
				"please report it with the command line and this message; exit status %d\n",
				name, e.Value, panics.Where(e.Stack), exitBug)
			code = exitBug
		}
	}()
	switch os.Getenv(testPanicEnv) {
	case "main":
		panic("test panic (" + testPanicEnv + "=main)")
	case "worker":
		var g panics.Group
		g.Go(func() { panic("test panic (" + testPanicEnv + "=worker)") })
		g.Wait()
	}
	return exitCode(name, c.run(args, stdout, stderr), stderr)
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "psub: probably submodular CRF training and inference")
	fmt.Fprintln(w, "\nusage: psub COMMAND [flags] [args]\n\ncommands:")
	names := slices.Sorted(maps.Keys(cmds))
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	help("psub", nil)(w)
}

// writeJSON prints v as one JSON object followed by a newline.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

func runVersion(args []string, stdout, _ io.Writer) error {
	fs := newFlags("version", "psub version", stdout)
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	return writeJSON(stdout, map[string]string{"version": version})
}
