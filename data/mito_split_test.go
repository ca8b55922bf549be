package data

import (
	"slices"
	"testing"
)

func TestMitoHalves(t *testing.T) {
	for _, tc := range []struct {
		name string
		box  MitoBox
		want [2]MitoBox
		bad  bool
	}{
		{"whole volume", MitoBox{}, [2]MitoBox{MitoHalf(0), MitoHalf(1)}, false},
		{"quick crop", MitoQuickCrop(), [2]MitoBox{
			{X: 384, Y: 288, Z: 62, Width: 128, Height: 192, Depth: 40},
			{X: 512, Y: 288, Z: 62, Width: 128, Height: 192, Depth: 40}}, false},
		{"odd width", MitoBox{X: 10, Width: 5, Height: 4, Depth: 3}, [2]MitoBox{
			{X: 10, Width: 2, Height: 4, Depth: 3}, {X: 12, Width: 3, Height: 4, Depth: 3}}, false},
		{"width 1", MitoBox{Width: 1, Height: 4, Depth: 3}, [2]MitoBox{}, true},
		{"outside the volume", MitoBox{X: 1000, Width: 100, Height: 4, Depth: 3}, [2]MitoBox{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MitoHalves(tc.box)
			if tc.bad {
				if err == nil {
					t.Fatalf("no error for %+v", tc.box)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			// Invariant: the halves tile the box along x.
			r, _ := tc.box.resolve()
			if got[0].X != r.X || got[0].X+got[0].Width != got[1].X || got[1].X+got[1].Width != r.X+r.Width {
				t.Errorf("halves %+v do not tile %+v", got, r)
			}
		})
	}
}

func TestBuildMitoSplit(t *testing.T) {
	needDataSet(t, MitoDir)
	if _, _, err := BuildMitoSplit(MitoOptions{Volume: "testing"}); err == nil {
		t.Errorf("Volume given: no error")
	}
	crop := MitoBox{X: 400, Y: 300, Z: 70, Width: 64, Height: 48, Depth: 8}
	var calls []int
	set, folds, err := BuildMitoSplit(MitoOptions{Crop: crop, Segments: 40, KeepImage: true,
		Progress: func(done, total int) { calls = append(calls, done) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Items) != 3 || len(folds) != 1 || !slices.Equal(folds[0].Train, []int{0, 1}) || !slices.Equal(folds[0].Test, []int{2}) {
		t.Fatalf("%d items, folds %+v; want 3 items and one fold {[0 1] [2]}", len(set.Items), folds)
	}
	if !slices.Equal(calls, []int{1, 2, 3}) || !set.Reduced {
		t.Errorf("progress %v (want [1 2 3]), reduced %v (want true)", calls, set.Reduced)
	}
	for i, it := range set.Items {
		checkSegmented(t, it, 105)
		w := it.Regions.Width
		if want := []int{32, 32, 64}[i]; w != want || it.Regions.Height != 48 || it.Regions.Depth != 8 {
			t.Errorf("item %d: %d×%d×%d, want %d×48×8", i, w, it.Regions.Height, it.Regions.Depth, want)
		}
		if (it.Image != nil) != (i == 2) {
			t.Errorf("item %d: image kept %v, want only the test item's", i, it.Image != nil)
		}
	}
	if n0, n2 := set.Items[0].Instance.Nodes(), set.Items[2].Instance.Nodes(); n0 > n2 {
		t.Errorf("half has %d supervoxels, whole test crop %d: halves must get about half", n0, n2)
	}
	t.Log(set.Description)
}
