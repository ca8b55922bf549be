// Package qp solves the quadratic program of the 1-slack cutting-plane
// structured SVM with margin rescaling (Joachims, Finley & Yu 2009), with the
// hard linear constraints on w that the probably submodular constraint sets
// add (Berman & Blaschko, sections 2 and 6).
//
// # Primal
//
//	min_{w, ξ}  ½‖w‖² + C ξ
//	s.t.  a_j·w ≥ b_j − ξ   for every cutting plane j  (a_j = mean δψ, b_j = mean loss)
//	      ξ ≥ 0
//	      g_k·w ≥ 0         for every hard row k       (submodularity constraints: C3, C4, C̄4, C2*)
//	      w_i = 0           for fixed coordinates      (C1, C2)
//	      s_i·w_i ≥ 0       for sign-bounded coordinates, s_i = ±1 (C1, C2)
//
// All hard constraints are homogeneous, so w = 0 with ξ = max(0, max_j b_j)
// is always feasible and the QP always has a unique optimal w.
//
// # Dual
//
// Fixed coordinates are eliminated: they are zeroed in every stored a_j and
// g_k, and all inner products below are over the free coordinates. With
// multipliers α_j ≥ 0 (planes), α_0 ≥ 0 (ξ ≥ 0), μ_k ≥ 0 (rows) and β_i ≥ 0
// (sign bounds), stationarity of the Lagrangian gives
//
//	w = Σ_j α_j a_j + Σ_k μ_k g_k + ν,   ν_i = s_i β_i,      α_0 + Σ_j α_j = C,
//
// and the dual is
//
//	max  Σ_j α_j b_j − ½‖w(α, μ, ν)‖²
//	s.t. α ≥ 0, Σ_j α_j ≤ C, μ ≥ 0, s_i ν_i ≥ 0.
//
// Its value at any dual-feasible point is a lower bound on the primal optimum
// (Solution.Dual). At w = w(α, μ, ν) the duality gap decomposes into
// complementary-slackness terms,
//
//	P(w) − D = Σ_j α_j (a_j·w − b_j + ξ) + α_0 ξ + Σ_k μ_k g_k·w + Σ_i β_i s_i w_i,
//
// each non-negative when w is feasible, which is what the solver drives to 0.
//
// # Algorithm
//
// Everything runs in the Gram space of the stored vectors: K = [A; G][A; G]ᵀ
// is kept incrementally (adding a plane or row costs one row of K, O(k·nnz)),
// and the solver maintains v_p = r_p·w for every plane and row and
// u_i = s_i w_i for every sign bound, never w itself. A step on one dual
// variable updates v in O(k) plus the bounded coordinates the vector touches;
// no step costs O(dim), so a wide problem (dim 17 000) with few planes is as
// cheap as a narrow one. w is formed once at the end (O(k·nnz)).
//
// # Many hard rows
//
// The full K takes k² floats: multi-label C4 introduces tens of thousands
// of sparse rows (yeast, 1 500 examples: 19 GB), far more than the rank of
// the rows, which is at most the dimension. So past 2048 rows a Solver goes
// lean: it keeps the planes' rows of K (planes × k, the planes are few) and
// its diagonal, and computes a product of two rows from the rows themselves
// when the polish needs it (O(nnz), and exactly 0 for rows of different
// groups, below). The sweeps then keep w explicitly: a step moves w by
// r_p (O(nnz)) and the planes' v through their rows of K (O(planes)); the
// rows' v are recomputed from w when read (O(non-zeros of all rows), once
// per sweep and per polish round). Memory is O(k·(planes + nnz)) instead of
// O(k²), and the iterates are those of the dense path up to rounding. Below
// 2048 rows the full K costs at most tens of MB and a step is one pass over
// a contiguous row, the fastest way for the few rows of segmentation fits.
// BENCHMARKS.md has the measurements.
//
// One sweep is
//
//   - SMO steps on the plane simplex {α_0 + Σα = C}, where α_0 is the
//     implicit slack plane (a_0 = 0, b_0 = 0): the receiving plane maximises
//     G_j = b_j − a_j·w, the donor (α > 0) maximises the second-order gain
//     (G_up − G_i)²/(K_uu + K_ii − 2K_ui) as in LIBSVM, and the step is the
//     exact maximiser along the pair, clipped to the donor's mass;
//   - one exact coordinate-ascent step on every hard row that violates its
//     KKT condition: μ_k ← max(0, μ_k − g_k·w/‖g_k‖²);
//   - the same for every sign bound: β_i ← max(0, β_i − s_i w_i).
//
// Coordinate ascent alone converges slowly when constraints are nearly
// linearly dependent (two almost opposite rows, a row almost spanned by sign
// bounds, a thin feasible cone), so at sweeps 1, 2, 4, 8, … the solver also
// runs an active-set polish from the current duals: a primal active-set
// method on the dual QP. The free set holds the multipliers currently > 0;
// each step solves the KKT equalities of the dual restricted to it exactly
// (a dense LU in the Gram space, with free sign bounds eliminated and a tiny
// iterated proximal term for dependent vectors, ε·K_pp on each vector's own
// diagonal so that rows 10⁵ times shorter than the planes are solved as
// accurately as the planes), moves towards that solution
// as far as the multipliers stay ≥ 0 and drops those that reach 0 (without
// free sign bounds it follows the projected path, clipping rows at 0, to the
// dual's first local maximum along it, so that many rows leave in one step);
// at the restricted optimum the most violated constraints enter. In exact
// arithmetic every iterate is dual feasible, the dual never decreases and the
// end point is a KKT point of the whole QP; in float64 the remaining gap and
// row violations are at rounding level (≈1e-15 relative in the tests and
// benchmarks). Without free sign bounds the system is K_FF itself, whose
// Cholesky factor is updated as F changes (O(|F|²) per step, kept between
// solves); with them a step costs a fresh O(|F|³) LU. Hard rows whose
// supports share no coordinate are orthogonal: when the rows of F fall into
// several such groups (multi-label C4: one per label pair), the factor keeps
// one block per group and the planes as a border (their Schur complement),
// so a step costs Σ_g |F_g|² instead of |F|². For the same reason the
// constraints enter by group: 8 per round, the most violated, unless the
// violated rows span 16 groups or more; then up to 8 of each group, at
// most 8 per 8 groups (yeast: a new plane leaves about a thousand rows
// violated over its 91 groups, which entering 8 per round took over a
// hundred rounds, each a full restricted solve and pricing pass, to
// bring in). Moving v costs
// O(|F|·k), or the non-zeros of all vectors through w when that is less. On the SSVM's warm starts (one new plane) it usually finishes in
// the first sweep; the sweeps are the fallback, used when the polish stops
// early (free set above 5000 planes and rows, 800 with free sign bounds,
// 400 steps, or a non-finite solve). Options.NoPolish turns it off.
//
// Solve stops when the relative gap is at most Options.Tol and no row is
// violated by more than Options.FeasTol·‖g_k‖·√(2·Primal). On nearly
// dependent constraints the multipliers can be large and cancel in
// w = Σλ_p r_p; then float64 cannot certify below the rounding level, and the
// test also accepts a gap of 16·ε·N² and a violation of 16·ε·N, with
// N = Σ_p |λ_p|‖r_p‖ + Σ_i β_i and ε = 2⁻⁵².
//
// Solve warm-starts from the duals of the previous call: new planes and rows
// enter with zero dual, which keeps the warm start dual feasible, and
// RemovePlanes moves a dropped plane's α to the slack for the same reason.
// Each Solve recomputes v and u from the duals, so rounding drift does not
// accumulate across calls.
//
// # Feasibility of the returned W
//
// Solution.W is w(α, μ, ν) with sign-bounded coordinates clipped to their
// bound and fixed coordinates exactly 0, so fixed and sign constraints hold
// exactly. Hard rows hold up to Solution.RowViolation (the largest distance
// from W to a row's half-space), which the stopping rule keeps below
// FeasTol·√(2·Primal). Primal = ½‖W‖² + C·Xi is evaluated at this W with
// Xi = max(0, max_j b_j − a_j·W), so it is exactly the primal objective of
// (W, Xi); weak duality Primal ≥ optimum ≥ Dual is guaranteed when
// RowViolation = 0 and otherwise may fail by about Σ_k μ_k‖g_k‖·RowViolation
// (rounding level when the polish finished, which is the usual case; at most
// the FeasTol scale when the sweeps did). Callers that test
// submodularity on W should use a margin tolerance of that order; the
// learner's hard-constraint generation treats margins ≥ −ε as satisfied.
//
// # Vocabulary
//
// A cutting plane is the constraint of one joint labelling returned by
// loss-augmented inference; a hard row (hard constraint) is one
// submodularity constraint b_j ⊗ p_i added by Algorithm 1 or 2 of the paper;
// an active plane or row is one with a positive dual.
package qp
