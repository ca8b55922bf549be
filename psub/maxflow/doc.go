// Package maxflow computes maximum flows and minimum s-t cuts with the
// Boykov–Kolmogorov (BK) algorithm, the solver behind graph-cut inference
// for submodular pairwise energies (binary labelling, QPBO, α-expansion).
//
// # Model
//
// A Graph has nodes 0..n-1 plus two terminals, the source s and the sink t.
// Node i has terminal capacities s->i and i->t (AddTerminal, SetTerminal);
// an edge is a pair of arcs i->j and j->i with their own capacities
// (AddEdge). A cut splits the nodes into S (with s) and T (with t); its value
// is the sum of the capacities of arcs leaving S. MaxFlow returns the value
// of a maximum flow, which equals the minimum cut value, and InSourceSide
// tells on which side of that minimum cut each node lies. In energy terms
// the cut value is
//
//	Σ_i sink_i·[i∈S] + source_i·[i∈T] + Σ_(i,j) cap_ij·[i∈S][j∈T] + revCap_ij·[i∈T][j∈S]
//
// so labelling x_i = 1 for i∈T, a submodular pairwise energy is minimised
// by one solve. Terminal capacities may be negative (only their difference
// matters; see AddTerminal); edge capacities must be >= 0.
//
// After a solve, ReachableFromSource(i) and ReachesSink(i) tell whether i
// can still get flow from s, or send flow to t, in the residual graph: such
// nodes are in S, respectively T, of every minimum cut. Each remaining node
// is in S in some minimum cuts and in T in others; InSourceSide puts all of
// them in S (like Kolmogorov's default), which gives the minimum cut with
// the largest S.
//
// # Algorithm
//
// BK (Boykov & Kolmogorov, PAMI 2004) grows two search trees, from s and
// from t, through non-saturated arcs; when they touch, it augments along
// the path found, turns the nodes whose parent arc saturated into orphans,
// and re-attaches (adopts) or frees them. Trees are kept between
// augmentations, which makes BK fast on the short-path, grid-like graphs of
// vision. Like Kolmogorov's implementation this one keeps an "active" FIFO
// of tree nodes still to grow, time stamps and distance-to-terminal
// estimates to pick short new parents during adoption, and grows the same
// node again right after an augmentation.
//
// # Reuse
//
// Structured SVM training solves the same graph many times with different
// capacities. Two patterns avoid rebuilding it:
//
//   - Reset: ResetCapacities zeroes every capacity and the flow but keeps
//     nodes, edges and storage; then SetTerminal/SetEdge and MaxFlow.
//   - Dynamic graph cuts (Kohli & Torr, ICCV 2005): after a solve, change
//     some capacities with UpdateTerminal/UpdateEdge, which keep the current
//     flow valid (reparameterising when a capacity drops below the flow it
//     carries) and mark the nodes touched; MaxFlowReuse then repairs the
//     previous search trees around the marked nodes and continues. The flow
//     value equals that of a fresh solve.
//
// # Memory
//
// Per node: 32 bytes of search state (node) plus 16 bytes of user
// capacities (term); per edge: two 16-byte arcs plus 16 bytes of user
// capacities, 48 bytes. Indices are int32, so a graph holds at most 2^31-1
// nodes and 2^30-1 edges. Solves allocate nothing once the orphan queue has
// reached its working size.
//
// # DIMACS
//
// Read and Write handle the DIMACS max-flow format (Problem); terminal
// capacities are written as arcs from s and to t. Problem.Build makes a
// Graph from a parsed problem. FORMATS.md in this directory
// (psub/maxflow/FORMATS.md) describes the format and what Read accepts and
// rejects.
package maxflow
