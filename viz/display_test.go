package viz

import (
	"strings"
	"testing"
	"time"
)

// The header says which profile made the page: the quick one unmistakably,
// with the warning that prose numbers describe the full run they name.
func TestHeaderStatesTheProfile(t *testing.T) {
	h := HeaderInfo{Title: "01 · Cows", Reproduces: "§1", Data: "20 images"}
	when := time.Date(2026, 11, 25, 3, 4, 0, 0, time.UTC)
	quick := headerMarkdown(h, "quick", "abc1234", when, "a machine")
	full := headerMarkdown(h, "full", "abc1234", when, "a machine")
	for _, want := range []string{
		"**Quick profile: a reduced run, not the paper's protocol.**",
		"Prose sections that quote numbers describe the full run they name, not the tables on this page.",
		"| profile | `quick` ",
		"| date | 2026-11-25 03:04 UTC |",
		"| commit | `abc1234` |",
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

// HeaderMarkdown follows PSUB_PROFILE: anything but "full" is quick.
func TestHeaderMarkdownFollowsProfileEnv(t *testing.T) {
	for env, want := range map[string]string{"": "Quick profile", "quick": "Quick profile", "nonsense": "Quick profile", "full": "Full profile"} {
		t.Setenv("PSUB_PROFILE", env)
		if md := HeaderMarkdown(HeaderInfo{Title: "t"}); !strings.Contains(md, want) {
			t.Errorf("PSUB_PROFILE=%q: header lacks %q:\n%s", env, want, md)
		}
	}
}
