// Package maxflowtest provides max-flow workloads and checks for tests,
// benchmarks and notebook 08: a seeded segmentation-like grid built the way
// psub/maxflow's BENCHMARKS describe their grids (NewGrid, GridCapacities,
// to time solves after a reset) and the capacity of the cut a solve found
// (CutCapacity), which certifies the flow by max-flow = min-cut.
//
// It follows gonum's *test packages: tested helpers for other packages'
// tests, not part of the library's API. (psub/maxflow's own benchmarks keep
// their generators: an in-package test cannot import a package that imports
// maxflow.)
package maxflowtest
