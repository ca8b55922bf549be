package viz

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// logTicks marks a log axis with labelled ticks only: every power of ten
// (every second or third one on axes of more than eight decades), and 2 and
// 5 times them on axes of fewer than three decades, where powers alone
// would leave one or two labels. gonum's LogTicks adds eight unlabelled
// ticks per decade, which bunch up into a comb at the top of each decade
// and say nothing a reader can use.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0) || !(hi > lo) {
		return positiveTicks(lo, hi)
	}
	decades := math.Log10(hi / lo)
	mults := []float64{1}
	switch {
	case decades < 1:
		mults = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	case decades < 3:
		mults = []float64{1, 2, 5}
	}
	step := max(int(math.Ceil(decades/8)), 1)
	type power struct {
		m float64
		e int
	}
	var ps []power
	plain := true // every label between 0.001 and 100000
	for e := int(math.Floor(math.Log10(lo))); e <= int(math.Ceil(math.Log10(hi))); e++ {
		if ((e%step)+step)%step != 0 {
			continue
		}
		for _, m := range mults {
			v := m * math.Pow10(e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			ps = append(ps, power{m, e})
			plain = plain && e >= -3 && e <= 5
		}
	}
	if len(ps) < 2 {
		return positiveTicks(lo, hi)
	}
	ticks := make([]plot.Tick, len(ps))
	readable := true
	for i, p := range ps {
		ticks[i] = plot.Tick{Value: p.m * math.Pow10(p.e), Label: powerLabel(p.m, p.e, plain)}
		readable = readable && len(missingGlyphs(plot.New().Y.Tick.Label, ticks[i].Label)) == 0
	}
	if !readable {
		// The chart font lacks ⁰ and ⁻ (10⁻⁴ came out as "10⁴"): the whole
		// axis is written plainly when that stays short (0.0001 … 1), else
		// as m·e±n.
		short := !slices.ContainsFunc(ps, func(p power) bool { return p.e < -5 || p.e > 6 })
		for i, p := range ps {
			if short {
				ticks[i].Label = powerLabel(p.m, p.e, true)
			} else {
				ticks[i].Label = strconv.FormatFloat(p.m, 'f', -1, 64) + "e" + strings.Replace(strconv.Itoa(p.e), "-", "−", 1)
			}
		}
	}
	return ticks
}

// positiveTicks are gonum's linear ticks without those a log axis cannot
// place (zero and below).
func positiveTicks(lo, hi float64) []plot.Tick {
	return slices.DeleteFunc((plot.DefaultTicks{}).Ticks(lo, hi), func(t plot.Tick) bool { return !(t.Value > 0) })
}

// powerLabel writes m·10^e plainly (0.001, 20000) or as m·10ⁿ; one axis
// uses one form for all its labels (gonum's %g gives "100000" beside
// "1e+06").
func powerLabel(m float64, e int, plain bool) string {
	if plain {
		return strconv.FormatFloat(m*math.Pow10(e), 'f', max(-e, 0), 64)
	}
	sup := strings.NewReplacer("-", "⁻", "0", "⁰", "1", "¹", "2", "²", "3", "³", "4", "⁴", "5", "⁵", "6", "⁶", "7", "⁷", "8", "⁸", "9", "⁹").Replace(strconv.Itoa(e))
	if m == 1 {
		return "10" + sup
	}
	return strconv.FormatFloat(m, 'f', -1, 64) + "·10" + sup
}

// plainTicks are gonum's default linear ticks with labels in their shortest
// form: gonum writes every label with the precision of the step, so an axis
// from 1 to 182 reads "25.00, 100.00, 175.00".
type plainTicks struct{}

func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := (plot.DefaultTicks{}).Ticks(lo, hi)
	for i, t := range ts {
		if t.Label == "" {
			continue
		}
		if v, err := strconv.ParseFloat(t.Label, 64); err == nil {
			ts[i].Label = strconv.FormatFloat(v, 'f', -1, 64)
		}
	}
	return ts
}

// barAxisTicks are the ticks of the value axis of a bar chart (plainTicks);
// the type marks the axis, so renderPlot can say when it does not start at
// zero (bars are read by their length).
type barAxisTicks struct{ plainTicks }

// logBarTicks are the ticks of the value axis of a bar chart on a log
// scale (logTicks); renderPlot widens such an axis to whole decades, so
// that a power of ten is labelled above the longest bar and below the
// shortest.
type logBarTicks struct{ logTicks }
