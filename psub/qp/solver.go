package qp

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Coordinate states of w.
const (
	free  int8 = 0
	lower int8 = 1  // w_i ≥ 0
	upper int8 = -1 // w_i ≤ 0
	fixed int8 = 2  // w_i = 0
)

// Solver holds the QP of the 1-slack SSVM: its cutting planes, hard rows,
// fixed and sign-bounded coordinates, the Gram matrix of planes and rows
// (past 2048 rows only the planes' part: see gram), and the dual variables
// of the last Solve (the warm start of the next one).
//
// Construction errors (wrong vector length, NaN/Inf entries, bad coordinate
// or sign) are sticky, as in bufio.Writer: the offending call does nothing
// (an Add returns −1), Err reports the first such error and every later Solve
// returns it. A Solver is not safe for concurrent use.
type Solver struct {
	dim int
	c   float64
	err error

	state []int8    // per coordinate: free, lower, upper or fixed
	beta  []float64 // per coordinate: dual of its sign bound (≥ 0), 0 if not bounded

	// General constraint vectors (planes and rows) in insertion order;
	// "general index" p runs over them.
	vecs    []vec
	isPlane []bool
	rhs     []float64 // b_j for a plane, 0 for a row
	lam     []float64 // α_j for a plane, μ_k for a row
	// gram[p][q] = r_p·r_q on the free coordinates, and diag[p] = r_p·r_p.
	// gram[p] is nil for the rows once the solver is lean: then only the
	// planes' Gram rows are stored (planes × all vectors) and the products
	// of two rows are computed when needed (kRow), so that memory grows
	// with rows·(planes + nnz) rather than rows² (multi-label C4 introduces
	// tens of thousands of rows: 19 GB of Gram matrix for yeast).
	gram   [][]float64
	diag   []float64
	lean   bool
	leanAt int   // the row count at which the solver goes lean (leanRows at New)
	planes []int // plane index j → general index
	rows   []int // row index k → general index
	// Groups of rows: rows whose supports share a coordinate, transitively,
	// are in one group, and rows of different groups are orthogonal (the
	// polish's factor is block diagonal over them). rep holds a coordinate
	// of each row's support (−1 for planes and empty rows) and uf the
	// union-find forest over coordinates.
	rep []int
	uf  []int

	scatter []float64 // all-zero scratch of length dim (see add)
	// bver counts changes of the set of bounded coordinates (Fix, Bound);
	// it dates the vectors' cached bound entries (vec.bent).
	bver int
	// chol factors the Gram matrix of the polish's last free set (without
	// sign bounds); nil until needed and after Fix changes the Gram matrix.
	chol *activeChol
	// multiDrops counts the polish's path steps that dropped more than one
	// row at once (for the tests).
	multiDrops int
	// wideEnters counts the polish rounds that entered more than maxEnter
	// constraints (rows of many groups; see entering), for the tests.
	wideEnters int
	// gaveUp counts polishes that ended before a KKT point of the whole
	// dual (round or size limit, failed restricted solve), for the tests.
	gaveUp int
}

// New returns an empty QP for weight vectors of length dim with
// regularisation constant c (the C of ½‖w‖² + Cξ).
func New(dim int, c float64) (*Solver, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("qp: dimension %d, want > 0", dim)
	}
	if !(c > 0) || math.IsInf(c, 1) {
		return nil, fmt.Errorf("qp: C = %v, want a finite C > 0", c)
	}
	return &Solver{
		dim:    dim,
		c:      c,
		state:  make([]int8, dim),
		beta:   make([]float64, dim),
		leanAt: leanRows,
	}, nil
}

// Dim returns the length of w.
func (s *Solver) Dim() int { return s.dim }

// C returns the regularisation constant.
func (s *Solver) C() float64 { return s.c }

// Err returns the first construction error, or nil.
func (s *Solver) Err() error { return s.err }

// Planes returns the number of cutting planes held.
func (s *Solver) Planes() int { return len(s.planes) }

// Rows returns the number of hard rows held.
func (s *Solver) Rows() int { return len(s.rows) }

func (s *Solver) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// Fix constrains w_i = 0 (constraint sets C1/C2 zero some weights). It may be
// called at any time; stored planes and rows lose their coordinate i and the
// Gram matrix is downdated in O(k²).
func (s *Solver) Fix(i int) {
	if i < 0 || i >= s.dim {
		s.fail(fmt.Errorf("qp: Fix(%d): coordinate out of range [0,%d)", i, s.dim))
		return
	}
	if s.state[i] == fixed {
		return
	}
	s.state[i] = fixed
	s.beta[i] = 0
	s.bver++
	s.chol = nil // the Gram matrix changes
	// Downdate K_pq −= r_p[i] r_q[i] over the vectors that touch i.
	var nz []int
	var val []float64
	for p := range s.vecs {
		if x := s.vecs[p].at(i); x != 0 {
			nz = append(nz, p)
			val = append(val, x)
		}
	}
	for a, p := range nz {
		s.diag[p] -= val[a] * val[a]
		if g := s.gram[p]; g != nil {
			for b, q := range nz {
				g[q] -= val[a] * val[b]
			}
		}
		s.vecs[p].zero(i)
	}
}

// Bound constrains the sign of w_i: sign = +1 means w_i ≥ 0, −1 means
// w_i ≤ 0. Bounding a coordinate with both signs fixes it; bounding a fixed
// coordinate does nothing.
func (s *Solver) Bound(i int, sign int) {
	if i < 0 || i >= s.dim {
		s.fail(fmt.Errorf("qp: Bound(%d, %d): coordinate out of range [0,%d)", i, sign, s.dim))
		return
	}
	if sign != 1 && sign != -1 {
		s.fail(fmt.Errorf("qp: Bound(%d, %d): sign must be +1 or -1", i, sign))
		return
	}
	switch st := s.state[i]; {
	case st == fixed || st == int8(sign):
	case st == free:
		s.state[i] = int8(sign)
		s.bver++
	default: // opposite sign already set: w_i = 0
		s.Fix(i)
	}
}

func (s *Solver) checkDense(what string, a []float64) bool {
	if len(a) != s.dim {
		s.fail(fmt.Errorf("qp: %s has length %d, want %d", what, len(a), s.dim))
		return false
	}
	for i, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			s.fail(fmt.Errorf("qp: %s: coordinate %d is %v", what, i, x))
			return false
		}
	}
	return true
}

// AddPlane adds the cutting plane a·w ≥ b − ξ (a = mean δψ, b = mean loss
// of the most violated joint labelling) and returns its plane index. Its dual
// α starts at 0. a is copied.
func (s *Solver) AddPlane(a []float64, b float64) int {
	what := fmt.Sprintf("plane %d", len(s.planes))
	if !s.checkDense(what, a) {
		return -1
	}
	if math.IsNaN(b) || math.IsInf(b, 0) {
		s.fail(fmt.Errorf("qp: %s: offset b is %v", what, b))
		return -1
	}
	d := make([]float64, s.dim)
	copy(d, a)
	s.add(vec{dense: d}, true, b)
	s.planes = append(s.planes, len(s.vecs)-1)
	return len(s.planes) - 1
}

// AddRow adds the hard constraint g·w ≥ 0 and returns its row index. Its dual
// μ starts at 0. g is copied.
func (s *Solver) AddRow(g []float64) int {
	what := fmt.Sprintf("row %d", len(s.rows))
	if !s.checkDense(what, g) {
		return -1
	}
	d := make([]float64, s.dim)
	copy(d, g)
	s.add(vec{dense: d}, false, 0)
	s.rows = append(s.rows, len(s.vecs)-1)
	return len(s.rows) - 1
}

// AddRowSparse adds the hard constraint Σ_t val[t]·w[idx[t]] ≥ 0 and returns
// its row index. Indices may come in any order; repeated indices are summed.
// Use it for rows with few non-zeros (a submodularity constraint touches only
// the 4 pairwise blocks of one label pair).
func (s *Solver) AddRowSparse(idx []int, val []float64) int {
	what := fmt.Sprintf("row %d", len(s.rows))
	if len(idx) != len(val) {
		s.fail(fmt.Errorf("qp: %s: %d indices but %d values", what, len(idx), len(val)))
		return -1
	}
	m := make(map[int]float64, len(idx))
	for t, i := range idx {
		if i < 0 || i >= s.dim {
			s.fail(fmt.Errorf("qp: %s: index %d out of range [0,%d)", what, i, s.dim))
			return -1
		}
		if x := val[t]; math.IsNaN(x) || math.IsInf(x, 0) {
			s.fail(fmt.Errorf("qp: %s: coordinate %d is %v", what, i, x))
			return -1
		}
		m[i] += val[t]
	}
	v := vec{idx: make([]int, 0, len(m))}
	for i := range m {
		v.idx = append(v.idx, i)
	}
	sort.Ints(v.idx)
	v.val = make([]float64, len(v.idx))
	for k, i := range v.idx {
		v.val[k] = m[i]
	}
	s.add(v, false, 0)
	s.rows = append(s.rows, len(s.vecs)-1)
	return len(s.rows) - 1
}

// leanRows is the number of hard rows above which a Solver stops storing
// the rows' Gram rows (see Solver.gram): below it the full Gram matrix is
// at most a few tens of MB and each coordinate step is one pass over a
// contiguous row, the fastest way for the few rows of segmentation fits.
// A variable so that the tests can run every problem lean.
var leanRows = 2048

// add stores v (zeroing fixed coordinates) and appends its Gram entries:
// O(k·nnz) for a plane, O(planes·nnz) for a row of a lean solver.
func (s *Solver) add(v vec, plane bool, b float64) {
	if v.dense != nil {
		for i, st := range s.state {
			if st == fixed {
				v.dense[i] = 0
			}
		}
	} else {
		for k, i := range v.idx {
			if s.state[i] == fixed {
				v.val[k] = 0
			}
		}
	}
	if !plane && !s.lean && len(s.rows) >= s.leanAt {
		s.goLean()
	}
	n := len(s.vecs)
	s.vecs = append(s.vecs, v)
	s.isPlane = append(s.isPlane, plane)
	s.rhs = append(s.rhs, b)
	s.lam = append(s.lam, 0)
	s.rep = append(s.rep, -1)
	s.diag = append(s.diag, dot(&v, &v))
	if s.lean && !plane {
		// Only the planes' rows get an entry (planes are dense).
		for _, p := range s.planes {
			s.gram[p] = append(s.gram[p], v.dotDense(s.vecs[p].dense))
		}
		s.join(n, &v)
		s.gram = append(s.gram, nil)
		return
	}
	row := make([]float64, n+1, n+1+16)
	// A sparse v is scattered into a dense buffer once, so that its
	// products with stored sparse vectors are gathers rather than merges
	// of two index lists (hard rows are sparse and numerous).
	dv := v
	if v.dense == nil && n > 0 {
		if len(s.scatter) != s.dim {
			s.scatter = make([]float64, s.dim)
		}
		for k, i := range v.idx {
			s.scatter[i] = v.val[k]
		}
		dv = vec{dense: s.scatter}
	}
	// A new row joins its group first: stored sparse rows of other groups
	// share no coordinate with it, and their products are skipped (exactly
	// 0; multi-label C4 has 91 groups, so that is nearly all of them).
	group := -1
	if !plane {
		s.join(n, &v)
		if v.dense == nil {
			group = s.group(n)
		}
	}
	for p := range n {
		var x float64
		if u := &s.vecs[p]; u.dense != nil {
			x = v.dotDense(u.dense)
		} else if group < 0 || s.isPlane[p] || s.group(p) == group {
			x = u.dotDense(dv.dense)
		}
		row[p] = x
		if s.gram[p] != nil {
			s.gram[p] = append(s.gram[p], x)
		}
	}
	if dv.dense != nil && v.dense == nil {
		for _, i := range v.idx {
			s.scatter[i] = 0
		}
	}
	row[n] = s.diag[n]
	s.gram = append(s.gram, row)
}

// goLean drops the rows' Gram rows; the planes' rows stay (see gram).
func (s *Solver) goLean() {
	s.lean = true
	for _, p := range s.rows {
		s.gram[p] = nil
	}
}

// kRow sets out[a] = r_p·r_q for q = idx[a]: from the stored Gram rows
// when p or q has one, otherwise (two rows of a lean solver) as a sparse
// product, exactly 0 for rows of different groups.
func (s *Solver) kRow(p int, idx []int, out []float64) {
	if g := s.gram[p]; g != nil {
		for a, q := range idx {
			out[a] = g[q]
		}
		return
	}
	u := &s.vecs[p]
	dense := u.dense
	if dense == nil {
		if len(s.scatter) != s.dim {
			s.scatter = make([]float64, s.dim)
		}
		for k, i := range u.idx {
			s.scatter[i] = u.val[k]
		}
		dense = s.scatter
	}
	gp := s.group(p)
	for a, q := range idx {
		switch {
		case q == p:
			out[a] = s.diag[p]
		case s.gram[q] != nil:
			out[a] = s.gram[q][p]
		case u.dense == nil && s.vecs[q].dense == nil && s.group(q) != gp:
			out[a] = 0
		default:
			out[a] = s.vecs[q].dotDense(dense)
		}
	}
	if u.dense == nil {
		for _, i := range u.idx {
			s.scatter[i] = 0
		}
	}
}

// k returns r_p·r_q.
func (s *Solver) k(p, q int) float64 {
	switch {
	case p == q:
		return s.diag[p]
	case s.gram[p] != nil:
		return s.gram[p][q]
	case s.gram[q] != nil:
		return s.gram[q][p]
	case s.vecs[p].dense == nil && s.vecs[q].dense == nil && s.group(p) != s.group(q):
		return 0
	}
	return dot(&s.vecs[p], &s.vecs[q])
}

// join records row p's support in the groups: its coordinates become one
// set of the union-find forest, and rep[p] one of them.
func (s *Solver) join(p int, v *vec) {
	if s.uf == nil {
		s.uf = make([]int, s.dim)
		for i := range s.uf {
			s.uf[i] = i
		}
	}
	root := -1
	link := func(i int) {
		r := s.find(i)
		if root < 0 {
			root = r
		} else if r != root {
			s.uf[r] = root
		}
	}
	if v.dense != nil {
		for i, x := range v.dense {
			if x != 0 {
				link(i)
			}
		}
	} else {
		for k, i := range v.idx {
			if v.val[k] != 0 {
				link(i)
			}
		}
	}
	s.rep[p] = root
}

// find returns the root of coordinate i's set, halving the path.
func (s *Solver) find(i int) int {
	for s.uf[i] != i {
		s.uf[i] = s.uf[s.uf[i]]
		i = s.uf[i]
	}
	return i
}

// group returns a key shared by exactly the rows of row p's group: the
// root coordinate of its support, or dim + p for a row without non-zeros
// (orthogonal to everything).
func (s *Solver) group(p int) int {
	if r := s.rep[p]; r >= 0 {
		return s.find(r)
	}
	return s.dim + p
}

// RemovePlanes drops the given cutting planes (typically those inactive for
// many iterations). Their dual mass moves to the slack, so the warm start
// stays dual feasible. Remaining planes keep their order but are renumbered
// 0..Planes()−1.
func (s *Solver) RemovePlanes(idx []int) {
	drop := make([]bool, len(s.vecs))
	for _, j := range idx {
		if j < 0 || j >= len(s.planes) {
			s.fail(fmt.Errorf("qp: RemovePlanes: plane %d out of range [0,%d)", j, len(s.planes)))
			return
		}
		drop[s.planes[j]] = true
	}
	s.compact(drop)
}

// RemoveRows drops the given hard rows. Remaining rows are renumbered
// 0..Rows()−1 in their order. Dropping a row with μ > 0 changes w, so the
// next Solve does more work.
func (s *Solver) RemoveRows(idx []int) {
	drop := make([]bool, len(s.vecs))
	for _, k := range idx {
		if k < 0 || k >= len(s.rows) {
			s.fail(fmt.Errorf("qp: RemoveRows: row %d out of range [0,%d)", k, len(s.rows)))
			return
		}
		drop[s.rows[k]] = true
	}
	s.compact(drop)
}

// compactRun moves n consecutive entries from index from to index to.
type compactRun struct{ to, from, n int }

func (s *Solver) compact(drop []bool) {
	keep := make([]int, 0, len(s.vecs))
	for p := range s.vecs {
		if !drop[p] {
			keep = append(keep, p)
		}
	}
	if len(keep) == len(s.vecs) {
		return
	}
	// In place: keep is increasing, so entry q of a row moves to b ≤ q and
	// row p to a ≤ p, each after it was read (the Gram matrix of multi-label
	// C4 holds 10⁸ entries; copying it allocated and cleared as much). The
	// entries move by runs of consecutive kept indices, the same in every
	// row (most compactions drop a few planes or rows, so a row moves in a
	// few long copies rather than entry by entry); the leading run, which
	// stays where it is, is skipped.
	var runs []compactRun
	for b := 0; b < len(keep); {
		e := b + 1
		for e < len(keep) && keep[e] == keep[e-1]+1 {
			e++
		}
		if keep[b] != b {
			runs = append(runs, compactRun{b, keep[b], e - b})
		}
		b = e
	}
	for a, p := range keep {
		if r := s.gram[p]; r != nil {
			for _, u := range runs {
				copy(r[u.to:u.to+u.n], r[u.from:u.from+u.n])
			}
			s.gram[a] = r[:len(keep)]
		} else {
			s.gram[a] = nil
		}
		s.diag[a] = s.diag[p]
		s.vecs[a] = s.vecs[p]
		s.isPlane[a] = s.isPlane[p]
		s.rhs[a] = s.rhs[p]
		s.lam[a] = s.lam[p]
		s.rep[a] = s.rep[p]
	}
	if s.chol != nil {
		s.chol.compact(drop, keep)
	}
	n := len(keep)
	clear(s.gram[n:]) // release the dropped rows
	s.gram = s.gram[:n]
	s.diag = s.diag[:n]
	s.vecs = s.vecs[:n]
	s.isPlane = s.isPlane[:n]
	s.rhs = s.rhs[:n]
	s.lam = s.lam[:n]
	s.rep = s.rep[:n]
	s.planes = s.planes[:0]
	s.rows = s.rows[:0]
	for p := 0; p < n; p++ {
		if s.isPlane[p] {
			s.planes = append(s.planes, p)
		} else {
			s.rows = append(s.rows, p)
		}
	}
}

// Plane returns a copy of cutting plane j's vector a (with the fixed
// coordinates zeroed) and its offset b: what AddPlane needs to rebuild the
// plane, for checkpoints.
func (s *Solver) Plane(j int) ([]float64, float64) {
	if j < 0 || j >= len(s.planes) {
		return nil, 0
	}
	p := s.planes[j]
	a := make([]float64, s.dim)
	s.vecs[p].addTo(a, 1)
	return a, s.rhs[p]
}

// Duals returns copies of the current plane duals α (by plane index) and
// hard-row duals μ (by row index): the warm start the next Solve begins from.
func (s *Solver) Duals() (alpha, mu []float64) {
	alpha, mu = make([]float64, len(s.planes)), make([]float64, len(s.rows))
	for j, p := range s.planes {
		alpha[j] = s.lam[p]
	}
	for k, p := range s.rows {
		mu[k] = s.lam[p]
	}
	return alpha, mu
}

// WarmStart sets the duals the next Solve starts from (a restored
// checkpoint's): α by plane index and μ by row index, with α ≥ 0, Σα ≤ C
// (up to rounding, which is scaled away) and μ ≥ 0. Any dual-feasible point
// is a valid start; a good one saves the sweeps that found it.
func (s *Solver) WarmStart(alpha, mu []float64) error {
	if s.err != nil {
		return s.err
	}
	if len(alpha) != len(s.planes) || len(mu) != len(s.rows) {
		return fmt.Errorf("qp: warm start with %d plane and %d row duals, want %d and %d", len(alpha), len(mu), len(s.planes), len(s.rows))
	}
	sum := 0.0
	for j, a := range alpha {
		if !(a >= 0) || math.IsInf(a, 1) {
			return fmt.Errorf("qp: warm start: plane %d dual %v, want finite ≥ 0", j, a)
		}
		sum += a
	}
	for k, m := range mu {
		if !(m >= 0) || math.IsInf(m, 1) {
			return fmt.Errorf("qp: warm start: row %d dual %v, want finite ≥ 0", k, m)
		}
	}
	scale := 1.0
	if sum > s.c {
		if sum > s.c*(1+1e-9) {
			return fmt.Errorf("qp: warm start: plane duals sum to %v, want ≤ C = %v", sum, s.c)
		}
		scale = s.c / sum
	}
	for j, p := range s.planes {
		s.lam[p] = scale * alpha[j]
	}
	for k, p := range s.rows {
		s.lam[p] = mu[k]
	}
	return nil
}

// ActivePlanes returns the indices of planes with dual α_j > eps.
func (s *Solver) ActivePlanes(eps float64) []int {
	var out []int
	for j, p := range s.planes {
		if s.lam[p] > eps {
			out = append(out, j)
		}
	}
	return out
}

// ActiveRows returns the indices of hard rows with dual μ_k > eps: the
// "active hard constraints" of the paper's tables. (A row can be tight with
// μ_k = 0 when it is degenerate; such rows are not counted.)
func (s *Solver) ActiveRows(eps float64) []int {
	var out []int
	for k, p := range s.rows {
		if s.lam[p] > eps {
			out = append(out, k)
		}
	}
	return out
}

// ErrNotConverged is returned (wrapped) by Solve when MaxIter sweeps did not
// reach the requested gap and feasibility; the Solution is still valid
// (dual feasible, W satisfies the fixed and sign constraints) but its gap is
// larger than asked.
var ErrNotConverged = errors.New("qp: not converged")
