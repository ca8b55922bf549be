package data

import (
	"fmt"
	"slices"
	"testing"
)

func TestSampleIndices(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n, k    int
		seed    uint64
		wantLen int
	}{
		{"retina size of horses", HorsesImages, RetinaImages, 1, RetinaImages},
		{"one", 5, 1, 7, 1},
		{"all", 10, 10, 1, 10},
		{"more than all", 10, 25, 1, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SampleIndices(tc.n, tc.k, tc.seed)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.wantLen {
				t.Fatalf("%d indices, want %d", len(got), tc.wantLen)
			}
			for i, v := range got {
				if v < 0 || v >= tc.n {
					t.Fatalf("index %d out of [0, %d)", v, tc.n)
				}
				if i > 0 && v <= got[i-1] {
					t.Fatalf("not sorted and distinct: %v", got)
				}
			}
			again, _ := SampleIndices(tc.n, tc.k, tc.seed)
			if !slices.Equal(got, again) {
				t.Fatalf("same seed, different samples: %v vs %v", got, again)
			}
		})
	}
	a, _ := SampleIndices(HorsesImages, RetinaImages, 1)
	b, _ := SampleIndices(HorsesImages, RetinaImages, 2)
	if slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 drew the same sample")
	}
	if a[len(a)-1] < RetinaImages {
		t.Errorf("sample %v is the first images in name order, not a draw", a)
	}
	for _, bad := range [][2]int{{0, 1}, {5, 0}, {5, -1}} {
		if _, err := SampleIndices(bad[0], bad[1], 1); err == nil {
			t.Errorf("SampleIndices(%d, %d): no error", bad[0], bad[1])
		}
	}
}

func TestBuildHorsesSample(t *testing.T) {
	needDataSet(t, HorsesDir)
	if _, err := BuildHorsesSample(ImageSetOptions{Limit: 3}, 3, 1); err == nil {
		t.Errorf("Limit with a sample: no error")
	}
	const k, seed = 3, 5
	set, err := BuildHorsesSample(ImageSetOptions{Downscale: 4}, k, seed)
	if err != nil {
		t.Fatal(err)
	}
	idx, _ := SampleIndices(HorsesImages, k, seed)
	if len(set.Items) != k || !set.Reduced {
		t.Fatalf("%d items (want %d), reduced %v (want true: downscaled)", len(set.Items), k, set.Reduced)
	}
	for i, it := range set.Items {
		// Weizmann horse files are horse001.jpg … horse328.jpg.
		if want := fmt.Sprintf("horse%03d", idx[i]+1); it.Instance.Name != want {
			t.Errorf("item %d is %s, want %s", i, it.Instance.Name, want)
		}
		checkSegmented(t, it, 74)
	}
	t.Log(set.Description)
}
