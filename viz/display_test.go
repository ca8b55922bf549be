package viz

import (
	"strings"
	"testing"
	"time"

	"github.com/probably-submodular/crf/internal/runenv"
)

// The header says which profile made the page: the quick one unmistakably,
// and that the numbers in its text are this run's.
func TestHeaderStatesTheProfile(t *testing.T) {
	run := runenv.Run{Profile: "quick", Commit: "abc1234", Machine: "a machine", Date: time.Date(2026, 11, 25, 3, 4, 0, 0, time.UTC)}
	h := HeaderInfo{Title: "01 · Cows", Reproduces: "§1", Data: "20 images", Run: run}
	quick := HeaderMarkdown(h)
	h.Run.Profile = "full"
	full := HeaderMarkdown(h)
	for _, want := range []string{
		"**Quick profile: a reduced run, not the paper's protocol.**",
		"every measured number in its text is printed by this run, not the full one.",
		"| profile | `quick` ",
		"| date | 2026-11-25 03:04 UTC |",
		"| commit | `abc1234` |",
		"| machine | a machine |",
	} {
		if !strings.Contains(quick, want) {
			t.Errorf("quick header lacks %q:\n%s", want, quick)
		}
	}
	if !strings.Contains(full, "**Full profile:**") || !strings.Contains(full, "| profile | `full` ") {
		t.Errorf("full header does not say full:\n%s", full)
	}
	if strings.Contains(full, "Quick profile") || strings.Contains(quick, "Full profile") {
		t.Errorf("a header names the other profile:\nquick:\n%s\nfull:\n%s", quick, full)
	}
	// The note comes right after the title and what the notebook reproduces,
	// before the table, where a reader of the page looks first.
	if i, j := strings.Index(quick, "Quick profile"), strings.Index(quick, "| | |"); i < 0 || i > j {
		t.Errorf("the quick note is not above the table:\n%s", quick)
	}
}

// The header draws the run it is given, never the environment's: a header
// without a run says the profile is not stated, whatever PSUB_PROFILE says.
func TestHeaderDrawsItsRun(t *testing.T) {
	t.Setenv("PSUB_PROFILE", "full")
	md := HeaderMarkdown(HeaderInfo{Title: "t", Run: runenv.Run{Profile: "quick"}})
	for _, want := range []string{"Quick profile", "| profile | `quick` ", "| commit | `unknown` |", "| date | unknown |", "| machine | unknown |"} {
		if !strings.Contains(md, want) {
			t.Errorf("header lacks %q:\n%s", want, md)
		}
	}
	md = HeaderMarkdown(HeaderInfo{Title: "t"})
	if !strings.Contains(md, "Profile not stated") || !strings.Contains(md, "| profile | `unknown` ") || strings.Contains(md, "Full profile") {
		t.Errorf("header without a run:\n%s", md)
	}
	if ms, err := ParseMarkers(HeaderMarker(HeaderInfo{Title: "t"})); err != nil || len(ms) != 1 || ms[0].Profile != "" {
		t.Errorf("marker without a run: %+v, %v", ms, err)
	}
}
