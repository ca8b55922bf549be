// Package slictest provides SLIC workloads for tests, benchmarks and
// notebook 08: UpscaleBilinear turns the first cow photograph into the
// 1024×768 8-bit image that psub/slic's benchmark and its scikit-image
// yardstick segment.
//
// It follows gonum's *test packages: tested helpers for other packages'
// tests, not part of the library's API. It imports psub/imageio only, so
// psub/slic's in-package benchmarks can use it too.
package slictest
