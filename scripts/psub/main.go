// Command psub trains and applies probably submodular CRFs from the command
// line. Every subcommand prints one JSON object on stdout for machines and
// writes progress to stderr.
//
//	go run ./scripts/psub help
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
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
		"model":    {"check a model file and its seal; -reseal accepts a deliberate edit", runModel},
		"predict":  {"label JSON Lines graphs with a trained model; score them when they carry labels", runPredict},
		"export":   {"write a built data set as JSON Lines graphs", runExport},
		"slic":     {"segment an image into SLIC superpixels, write a 16-bit label PNG", runSlic},
		"maxflow":  {"max-flow/min-cut of a DIMACS file (Boykov–Kolmogorov), with timings", runMaxflow},
		"protocol": {"run one of the paper's protocols (or a shard of it), merge shard files, list them", runProtocol},
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
	return exitCode(args[0], c.run(args[1:], stdout, stderr), stderr)
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "psub: probably submodular CRF training and inference")
	fmt.Fprintln(w, "\nusage: psub COMMAND [flags] [args]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "  help       this message; 'psub help COMMAND' is 'psub COMMAND -h'")
	fmt.Fprintln(w, "\nRun 'psub COMMAND -h' for the flags of a command. Exit status: 0 on success or")
	fmt.Fprintln(w, "help, 1 when the work fails (missing file, invalid data), 2 for a bad command line.")
}

// writeJSON prints v as one JSON object followed by a newline.
func writeJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

func runVersion(args []string, stdout, _ io.Writer) error {
	fs := newFlags("version", "psub version", stdout)
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	return writeJSON(stdout, map[string]string{"version": version})
}
