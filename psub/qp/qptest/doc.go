// Package qptest provides QP workloads for tests, benchmarks and notebook
// 08: Sequence solves the learner's pattern of warm-started QPs (cutting
// planes added one at a time, hard submodularity rows every tenth) on a
// seeded problem of the cows model's size.
//
// It follows gonum's *test packages: tested helpers for other packages'
// tests, not part of the library's API. (psub/qp's own benchmarks keep their
// generator: an in-package test cannot import a package that imports qp.)
package qptest
