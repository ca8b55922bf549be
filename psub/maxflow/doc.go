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
// vision. This implementation makes Kolmogorov's choices in Kolmogorov's
// order (the active FIFO, the time stamps and distance estimates of
// adoption, growing the same node again right after an augmentation,
// orphans of an augmentation taken last-made first, each with the orphans
// it makes, and a node's arcs visited last-added first), so it computes the
// same flow as his library, to the last bit, and the same cut.
//
// The data are laid out for the search: a node's arcs are stored together
// (laid out by AddEdges when it is given a graph's edges at once after its
// terminal capacities, otherwise by the first solve after edges are added,
// or by Prepare), a node keeps its parent node beside its parent arc, and
// indices are uint32. To build a graph from arrays, AddTerminalNodes adds
// the nodes with their terminal capacities in one pass, and AddEdges the
// edges.
//
// # Reuse
//
// Structured SVM training solves the same graph many times with different
// capacities. Three patterns avoid building it from nothing:
//
//   - Reset: ResetCapacities zeroes every capacity and the flow but keeps
//     nodes, edges and storage; then SetTerminal/SetEdge and MaxFlow.
//   - Dynamic graph cuts (Kohli & Torr, ICCV 2005): after a solve, change
//     some capacities with UpdateTerminal/UpdateEdge, which keep the current
//     flow valid (reparameterising when a capacity drops below the flow it
//     carries) and mark the nodes touched; MaxFlowReuse then repairs the
//     previous search trees around the marked nodes, as Kolmogorov's
//     maxflow(reuse_trees) does, and continues. The flow value equals that
//     of a fresh solve.
//   - Clear: empties the graph but keeps its storage, so that graph after
//     graph of any shape can be built and solved in it without allocating
//     once it has held the largest (Kolmogorov's reset()). When the graph
//     built again has the same edges, in the same order (one shape, new
//     capacities), AddEdges writes the capacities straight into the arcs
//     laid out before, and the layout pass is skipped.
//   - Release: gives a graph's storage up for the next New of a graph of
//     about its size (as a C++ program deletes a graph and gets the memory
//     back from malloc), so that graphs made and dropped one after the
//     other in different places do not allocate, zero and collect it anew.
//
// Solves allocate nothing: the solver's arrays are sized when the arcs are
// laid out.
//
// # Memory
//
// Per node: 32 bytes of search state, 16 bytes of user capacities and 8
// bytes of solver arrays (where its arcs start, its slot in the active
// queue): 56 bytes, plus room for orphans (8 bytes per node, at most 512
// KiB in all at first). Per edge: the edge as added (where its arcs are,
// or its ends until they are laid out, and its user capacities, 24 bytes)
// and its two arcs (16 bytes each): 56 bytes. Indices are uint32, so a
// graph holds at most 2^31-1 nodes and 2^31-3 edges.
//
// # DIMACS
//
// Read and Write handle the DIMACS max-flow format (Problem); terminal
// capacities are written as arcs from s and to t. Problem.Build makes a
// Graph from a parsed problem. FORMATS.md in this directory
// (psub/maxflow/FORMATS.md) describes the format and what Read accepts and
// rejects.
package maxflow
