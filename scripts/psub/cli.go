package main

import (
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/template"
)

// The command-line conventions every subcommand follows (run applies them):
//   - -h, -help or --help prints the usage on stdout and exits 0;
//   - an unknown flag, a malformed flag value or a bad argument prints the
//     error and the usage on stderr and exits 2;
//   - a failure while doing the work (a missing file, invalid data) prints
//     the error on stderr and exits 1.

// usageError is a bad command line. run prints it with the usage and exits 2.
type usageError struct {
	msg   string
	usage func(io.Writer)
}

func (e *usageError) Error() string { return e.msg }

// flags is a subcommand's flag set with its synopsis. It never prints by
// itself: parse errors come back as usageError and run prints them.
type flags struct {
	*flag.FlagSet
	synopsis string
	stdout   io.Writer
	// after, when set, writes more usage text below the flag list.
	after func(io.Writer)
}

// newFlags makes the flag set of subcommand name; synopsis is its usage
// line without "usage: ". Help goes to stdout.
func newFlags(name, synopsis string, stdout io.Writer) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flags{FlagSet: fs, synopsis: synopsis, stdout: stdout}
}

// printUsage writes the synopsis, the flags with their defaults and any
// text after them.
func (f *flags) printUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n", f.synopsis)
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
	if f.after != nil {
		f.after(w)
	}
}

// helpText holds the longer usage texts of the commands, one template
// each.
//
//go:embed help.tmpl
var helpText string

var helpTemplates = template.Must(template.New("help").Parse(helpText))

// help writes the text of help.tmpl named name, on data.
func help(name string, data any) func(io.Writer) {
	return func(w io.Writer) {
		var b strings.Builder
		if err := helpTemplates.ExecuteTemplate(&b, name, data); err != nil {
			panic(err) // help.tmpl is wrong: the tests print every usage
		}
		io.WriteString(w, b.String())
	}
}

// parse parses args. On -h/--help it prints the usage on stdout and
// returns flag.ErrHelp; any other parse error becomes a usageError.
func (f *flags) parse(args []string) error {
	err := f.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		f.printUsage(f.stdout)
		return flag.ErrHelp
	}
	return f.usageErr("%v", err)
}

// usageErr reports a bad command line of this subcommand.
func (f *flags) usageErr(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...), usage: f.printUsage}
}

// parseFlags parses args, in which every input is a flag (parse, then
// noArgs).
func (f *flags) parseFlags(args []string) error {
	if err := f.parse(args); err != nil {
		return err
	}
	return f.noArgs()
}

// noArgs rejects positional arguments for subcommands whose every input is
// a flag.
func (f *flags) noArgs() error {
	if f.NArg() > 0 {
		return f.usageErr("unexpected arguments %q (every input is a flag)", f.Args())
	}
	return nil
}

// exitCode maps a subcommand's error to the exit status, printing what the
// user needs on stderr.
func exitCode(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(stderr, "psub %s: %v\n", name, err)
	var ue *usageError
	if errors.As(err, &ue) {
		ue.usage(stderr)
		return 2
	}
	return 1
}

// maxWorkers bounds every -workers flag: more goroutines than this do not
// speed anything up on any machine psub runs on, and each costs memory.
const maxWorkers = 1024

// intIn refuses an integer flag outside [lo, hi]; what says what the flag
// means, for the message.
func (f *flags) intIn(name string, v, lo, hi int, what string) error {
	if v < lo || v > hi {
		return f.usageErr("-%s %d: out of range; want an integer from %d to %d (%s)", name, v, lo, hi, what)
	}
	return nil
}

// floatIn refuses a number flag outside the interval from lo to hi, open at
// the ends marked so, and NaN.
func (f *flags) floatIn(name string, v, lo, hi float64, openLo, openHi bool, what string) error {
	okLo := v > lo || (!openLo && v == lo)
	okHi := v < hi || (!openHi && v == hi)
	if okLo && okHi {
		return nil
	}
	l, r := "[", "]"
	if openLo {
		l = "("
	}
	if openHi {
		r = ")"
	}
	return f.usageErr("-%s %v: out of range; want a number in %s%g, %g%s (%s)", name, v, l, lo, hi, r, what)
}

// firstErr returns the first non-nil error: the checks of a command's
// flags, in the order of its usage.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
