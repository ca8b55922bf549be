package data

import (
	"fmt"
	"reflect"
	"testing"
)

func TestKFold(t *testing.T) {
	for _, c := range []struct{ n, k int }{{10, 2}, {111, 10}, {7, 7}, {23, 5}} {
		folds, err := KFold(c.n, c.k, 42)
		if err != nil {
			t.Fatal(err)
		}
		tested := make([]int, c.n)
		for f, fo := range folds {
			if len(fo.Train)+len(fo.Test) != c.n {
				t.Fatalf("n=%d k=%d fold %d: %d+%d", c.n, c.k, f, len(fo.Train), len(fo.Test))
			}
			if sz := len(fo.Test); sz < c.n/c.k || sz > (c.n+c.k-1)/c.k {
				t.Fatalf("fold %d test size %d", f, sz)
			}
			in := map[int]bool{}
			for _, i := range fo.Test {
				tested[i]++
				in[i] = true
			}
			for _, i := range fo.Train {
				if in[i] {
					t.Fatalf("example %d in both parts of fold %d", i, f)
				}
			}
		}
		for i, n := range tested {
			if n != 1 {
				t.Fatalf("example %d tested %d times", i, n)
			}
		}
		again, _ := KFold(c.n, c.k, 42)
		other, _ := KFold(c.n, c.k, 43)
		if !reflect.DeepEqual(folds, again) || (c.k < c.n && reflect.DeepEqual(folds, other)) {
			t.Fatal("folds not determined by the seed")
		}
	}
	for _, c := range []struct{ n, k int }{{5, 1}, {5, 6}} {
		if _, err := KFold(c.n, c.k, 1); err == nil {
			t.Errorf("KFold(%d, %d) accepted", c.n, c.k)
		}
	}
}

func TestRandomFoldsAndHoldOut(t *testing.T) {
	folds, err := RandomFolds(50, 40, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, f := range folds {
		if len(f.Test) != 10 || len(f.Train) != 40 {
			t.Fatalf("sizes %d/%d", len(f.Train), len(f.Test))
		}
		distinct[fmt.Sprint(f.Test)] = true
	}
	if len(distinct) < 39 {
		t.Fatalf("only %d distinct test sets among 40", len(distinct))
	}
	idx := folds[0].Train
	tr, val, err := HoldOut(idx, 0.2, 3)
	if err != nil || len(val) != 8 || len(tr) != 32 {
		t.Fatalf("hold-out %d/%d: %v", len(tr), len(val), err)
	}
	seen := map[int]bool{}
	for _, i := range append(append([]int(nil), tr...), val...) {
		seen[i] = true
	}
	for _, i := range idx {
		if !seen[i] {
			t.Fatalf("example %d lost", i)
		}
	}
	if _, _, err := HoldOut([]int{1, 2}, 0.1, 1); err == nil {
		t.Fatal("empty validation part accepted")
	}
}
