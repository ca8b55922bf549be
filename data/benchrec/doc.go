// Package benchrec reads the repository's benchmark records: the numbers of
// its BENCHMARKS files in a machine-readable form, one benchmarks.json
// beside each (Files lists them), so that notebook 08 reads them by record,
// row and column key instead of parsing the prose. The markdown explains the
// records; its wording can change freely.
//
// A File holds the machines and the records; a Record says what was
// measured, on which machine, when, at which commit, under which load, how,
// and the command that reruns it, and holds its numbers as a table (Value,
// Table). Read and Parse check a file on reading: unknown fields, records
// naming an unknown machine, ragged rows, and ratio columns that disagree
// with their inputs beyond the rounding of the numbers as written are
// errors that name the file, record, row and column.
//
//	files, missing, err := benchrec.ReadAll(root) // root: runenv.ModuleRoot()
//	r, err := files[0].Record("solve-vs-bk")
//	ms, err := r.Value("grid2d-256x256", "go_cpu_ms")
package benchrec
