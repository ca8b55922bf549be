// Package safefile writes files so that nothing half-written is ever taken
// for a result, and guards files that one run at a time may use.
//
//   - Write puts a file in place atomically: it is written under a
//     temporary name in the same folder, synced, and renamed over the
//     target, so a reader sees the old file or the new one, never a part
//     of it, whatever kills the writer.
//   - WriteSealed does the same and adds a SHA-256 checksum, which
//     OpenSealed/ReadSealed verify, for stored state that must not be
//     trusted when damaged (checkpoints, caches).
//   - Lock takes an exclusive lock that says which process holds it, for
//     files that two runs must not use at once (checkpoints, results).
//   - The temporary files of writers that died (killed, out of power) are
//     removed by the next Write of the same target (see CleanTemps).
//
// Every package of the module that writes an output file uses it, so that
// there is one implementation of these rules.
package safefile
