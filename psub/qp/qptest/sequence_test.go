package qptest

import "testing"

func TestSequence(t *testing.T) {
	sol, sweeps, err := Sequence(5, 5, 40, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sweeps <= 0 || len(sol.W) != 2*5+4*5 {
		t.Fatalf("sweeps %d, dim %d", sweeps, len(sol.W))
	}
	if sol.Primal < sol.Dual-1e-12 || sol.Gap() > 1e-5 {
		t.Errorf("primal %g dual %g gap %g", sol.Primal, sol.Dual, sol.Gap())
	}
	if sol.RowViolation > 1e-6 {
		t.Errorf("row violation %g", sol.RowViolation)
	}
	if len(sol.Mu) != 20 || len(sol.Alpha) == 0 {
		t.Errorf("%d rows, %d planes", len(sol.Mu), len(sol.Alpha))
	}
}
