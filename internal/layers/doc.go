// Package layers states which of the module's packages may import which,
// and its test checks the module against it with go list: imports point one
// way, from the algorithm out to the notebooks.
//
//	internal   imports nothing of the project but internal
//	psub       psub and internal (a sub-package never imports psub itself)
//	viz        viz and internal: it draws plain values and knows no algorithm
//	data       data, psub, viz and internal
//	notebooks  anything but scripts (the experiments beside the notebooks)
//	scripts    anything
//
// Test files count too: a test of viz that imports data ties viz to data as
// much as its code would.
package layers
