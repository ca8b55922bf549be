package main

import (
	"io"

	"github.com/probably-submodular/crf/data/protocol"
)

// runProtocolAll is "psub protocol all": every protocol at once. With
// -replay it replays their grids' union (replayall.go).
func runProtocolAll(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("protocol", "psub protocol all -profile P -replay N", stdout)
	profileName := fs.String("profile", string(protocol.Quick), "profile: tiny (tests), quick (minutes), full (the paper's protocol)")
	replay := fs.Int("replay", 0, "schedule the union of every protocol's grid on one pool of 1, 2, 4, ... `N` workers with the fit times recorded in each protocol's default results file, beside the protocols one after another; prints a table on stderr, JSON on stdout")
	fs.after = func(w io.Writer) {
		io.WriteString(w, "\nThe results files are the protocols' defaults (notebooks/results/NAME-full.jsonl for the full profile,\nout/NAME-PROFILE.jsonl for the others), each of a complete run.\n")
	}
	if err := fs.parse(args); err != nil {
		return err
	}
	if err := fs.noArgs(); err != nil {
		return err
	}
	prof, err := protocol.ParseProfile(*profileName)
	if err != nil {
		return fs.usageErr("-profile: %v", err)
	}
	if *replay <= 0 {
		return fs.usageErr("-replay %d: want the most workers, 1 or more (psub protocol all only replays)", *replay)
	}
	return runReplayAll(prof, *replay, stdout, stderr)
}
