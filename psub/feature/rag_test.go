package feature

import (
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/probably-submodular/crf/psub/imageio"
)

// labelMap builds a map from labels in (z, y, x) order.
func labelMap(w, h, d int, labels ...int32) *imageio.LabelMap {
	m := imageio.NewLabelMap(w, h, d)
	copy(m.Labels, labels)
	return m
}

func TestAdjacencyHandMade(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *imageio.LabelMap
		want [][2]int
	}{
		{"2-D no diagonals", labelMap(2, 2, 1,
			0, 1,
			2, 3), [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}}},
		{"2-D 3x3", labelMap(3, 3, 1,
			0, 0, 1,
			2, 2, 1,
			2, 3, 3), [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}},
		{"3-D 2x2x2", labelMap(2, 2, 2,
			0, 1,
			1, 1,
			2, 2,
			2, 3), [][2]int{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}},
		{"one region", labelMap(3, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), [][2]int{}},
		{"single column", labelMap(1, 3, 1, 5, 2, 5), [][2]int{{2, 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Adjacency(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("edges %v, want %v", got, tc.want)
			}
		})
	}
}

// bruteAdjacency tests every pair of voxels at Manhattan distance 1: a
// quadratic, independent oracle for Adjacency.
func bruteAdjacency(m *imageio.LabelMap) [][2]int {
	set := map[[2]int]bool{}
	n := len(m.Labels)
	for i := 0; i < n; i++ {
		xi, yi, zi := coords(m, i)
		for j := i + 1; j < n; j++ {
			xj, yj, zj := coords(m, j)
			if abs(xi-xj)+abs(yi-yj)+abs(zi-zj) != 1 {
				continue
			}
			a, b := int(m.Labels[i]), int(m.Labels[j])
			if a != b {
				set[[2]int{min(a, b), max(a, b)}] = true
			}
		}
	}
	out := [][2]int{}
	for e := range set {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i][0] < out[j][0] || out[i][0] == out[j][0] && out[i][1] < out[j][1]
	})
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestAdjacencyBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		w, h, d := 1+rng.IntN(6), 1+rng.IntN(6), 1+rng.IntN(4)
		if trial%2 == 0 {
			d = 1
		}
		m := imageio.NewLabelMap(w, h, d)
		k := 1 + rng.IntN(7)
		for i := range m.Labels {
			m.Labels[i] = int32(rng.IntN(k))
		}
		got, err := Adjacency(m)
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteAdjacency(m); !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d (%dx%dx%d): edges %v, brute force %v", trial, w, h, d, got, want)
		}
	}
}

func TestCountErrors(t *testing.T) {
	m := labelMap(2, 2, 1, 0, 1, -3, 1)
	if _, err := Adjacency(m); err == nil || !strings.Contains(err.Error(), "(0,1,0)") {
		t.Fatalf("negative label: err = %v", err)
	}
	bad := &imageio.LabelMap{Width: 2, Height: 2, Depth: 1, Labels: []int32{0}}
	if _, err := Count(bad); err == nil {
		t.Fatal("short label slice accepted")
	}
	if n, err := Count(labelMap(3, 1, 1, 0, 4, 2)); err != nil || n != 5 {
		t.Fatalf("Count = %d, %v; want 5", n, err)
	}
}

func TestCountRejectsSparseHugeIDs(t *testing.T) {
	if _, err := Count(labelMap(2, 1, 1, 0, 1<<30)); err == nil || !strings.Contains(err.Error(), "0..n-1") {
		t.Fatalf("label 2^30 in 2 voxels: err = %v", err)
	}
}
