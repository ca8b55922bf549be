package slic

import (
	"fmt"
	"slices"
	"testing"
)

// k-means must run: the labels after two rounds differ from those after
// one on a textured image, for odd and even grid steps, with and without
// ZeroInit. With ZeroInit the first assignment is purely spatial; with an
// odd step it reproduces the starting nearest-cell labels exactly, and a
// stopping rule that compares with those labels ended k-means before its
// first update (every region an axis-aligned grid cell).
func TestFirstUpdateChangesSegmentation(t *testing.T) {
	for _, tc := range []struct {
		w, h, segments, step int
	}{
		{63, 63, 49, 9},     // odd step
		{64, 64, 64, 8},     // even step
		{253, 176, 450, 10}, // the cow image's size, even
		{253, 176, 400, 11}, // and odd
	} {
		g := newGrid([3]int{tc.w, tc.h, 1}, tc.segments)
		if g.step[0] != tc.step || g.step[1] != tc.step {
			t.Fatalf("%d×%d, %d segments: grid step %v, the test expects %d", tc.w, tc.h, tc.segments, g.step, tc.step)
		}
		img := naturalImage(tc.w, tc.h, 1, 3, uint64(tc.w*tc.segments))
		for _, zero := range []bool{true, false} {
			name := fmt.Sprintf("%d×%d step %d ZeroInit %v", tc.w, tc.h, tc.step, zero)
			seg := func(iter int) []int32 {
				opt := Options{Segments: tc.segments, MaxIter: iter, ZeroInit: zero, SearchRadius: 2, Lab: true, DisableConnectivity: true}
				m, _, err := Segment(img, opt)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return m.Labels
			}
			one, two, ten := seg(1), seg(2), seg(10)
			if slices.Equal(one, two) {
				t.Errorf("%s: the labels after 2 rounds are those after 1: k-means stopped before its first update", name)
			}
			rect := rectangles(one, tc.w, tc.h)
			if zero && rect != countLabels(one) {
				t.Errorf("%s: after 1 round %d of %d regions are rectangles, want all (a purely spatial assignment)", name, rect, countLabels(one))
			}
			if r := rectangles(ten, tc.w, tc.h); r == countLabels(ten) {
				t.Errorf("%s: after 10 rounds every region (%d) is an axis-aligned rectangle", name, r)
			}
		}
	}
}

func countLabels(labels []int32) int {
	seen := map[int32]bool{}
	for _, l := range labels {
		seen[l] = true
	}
	return len(seen)
}

// rectangles counts the labels whose pixels fill their bounding box.
func rectangles(labels []int32, w, h int) int {
	type box struct{ x0, y0, x1, y1, n int }
	boxes := map[int32]*box{}
	for i, l := range labels {
		x, y := i%w, i/w
		b := boxes[l]
		if b == nil {
			b = &box{x, y, x, y, 0}
			boxes[l] = b
		}
		b.x0, b.y0, b.x1, b.y1 = min(b.x0, x), min(b.y0, y), max(b.x1, x), max(b.y1, y)
		b.n++
	}
	n := 0
	for _, b := range boxes {
		if (b.x1-b.x0+1)*(b.y1-b.y0+1) == b.n {
			n++
		}
	}
	return n
}
