//go:build !race

package maxflow

// raceEnabled: see race_on_test.go.
const raceEnabled = false
