// Package panics carries an unexpected panic (a bug) to the place that
// reports it.
//
// The psub command recovers panics once, at its command boundary, and
// exits 3 asking for a report. A panic in another goroutine cannot be
// recovered there: Go ends the process with exit status 2, which the
// command reserves for a bad command line. So the packages that run
// workers start them with a Group, whose Wait panics again in the waiting
// goroutine with an *Error that keeps the worker's value and stack; and a
// grid of fits records a fit's panic as the fit's error (Call).
//
// Where tells the line that panicked from a stack, for the report.
package panics
