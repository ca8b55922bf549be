package imageio

import (
	"testing"

	"github.com/probably-submodular/crf/internal/datadir"
)

// needData returns the folder sub (e.g. "tud_cows/images") of the real
// data, or skips the test saying where it looked (see package datadir).
func needData(tb testing.TB, sub string) string {
	tb.Helper()
	return datadir.Need(tb, sub)
}
