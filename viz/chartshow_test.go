package viz

import (
	"math"
	"testing"

	"github.com/probably-submodular/crf/viz/chart"
)

func TestShowBarsOfPlainValues(t *testing.T) {
	b := chart.Bars{Title: "t", Unit: "%", Categories: []string{"a", "b"},
		Series: []chart.Series{{Name: "x", Values: []float64{1, math.NaN()}, Errors: []float64{0.1, 0}}, {Name: "y", Values: []float64{2, 3}}}}
	s := BarSeriesOf(b.Series)
	if len(s) != 2 || s[0].Name != "x" || s[1].Values[1] != 3 || s[0].Errors[0] != 0.1 || s[1].Errors != nil {
		t.Fatalf("BarSeriesOf: %+v", s)
	}
	if err := ShowBars(b); err != nil {
		t.Fatal(err)
	}
	if err := ShowBars(chart.Bars{Title: "bad", Categories: []string{"a"}, Series: []chart.Series{{Name: "x", Values: []float64{1, 2}}}}); err == nil {
		t.Error("ShowBars of 2 values for 1 category: no error")
	}
}
