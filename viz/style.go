package viz

import (
	"fmt"
	"image/color"
	"math"
	"strings"
)

// SeriesColors colours series 0, 1, 2, … of every chart, static (gonum) and
// interactive (echarts) alike, so a series drawn both ways keeps its colour
// (the two libraries' own defaults differ: gonum starts with red, echarts
// with blue). The colours are Tableau 10, chosen to stay distinct for
// readers with common colour-vision deficiencies.
var SeriesColors = []color.NRGBA{
	{78, 121, 167, 255},  // blue
	{242, 142, 43, 255},  // orange
	{89, 161, 79, 255},   // green
	{225, 87, 89, 255},   // red
	{176, 122, 161, 255}, // purple
	{118, 183, 178, 255}, // teal
	{156, 117, 95, 255},  // brown
	{237, 201, 72, 255},  // yellow
	{255, 157, 167, 255}, // pink
	{186, 176, 172, 255}, // grey
}

// SeriesColor is the colour of series i (the palette repeats after ten).
func SeriesColor(i int) color.NRGBA { return SeriesColors[i%len(SeriesColors)] }

// seriesHex returns the palette as CSS colours for echarts.
func seriesHex() []string {
	hex := make([]string, len(SeriesColors))
	for i, c := range SeriesColors {
		hex[i] = cssColor(c)
	}
	return hex
}

func cssColor(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// isPercent reports whether an axis label says its values are percentages.
func isPercent(label string) bool { return strings.Contains(label, "%") }

// percentMax is where a percent axis ends: at 100 when the data reach past
// half of it (an accuracy axis that stops at 99.6, or a headroom that runs to
// 120, hides where 100 % is), otherwise where the data end.
func percentMax(dataMax float64) (float64, bool) {
	if dataMax > 50 && dataMax <= 100 {
		return 100, true
	}
	return dataMax, false
}

// baselineNote is what a bar chart's value-axis label adds when the axis
// does not start at zero, so bar lengths are not read as proportions.
func baselineNote(min float64) string {
	return fmt.Sprintf(" (axis starts at %s, not 0)", trimFloat(min))
}

// trimFloat formats a number briefly: 65, 0.5, 1.25e+06.
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
