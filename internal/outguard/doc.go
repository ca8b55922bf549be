// Package outguard keeps a command's outputs from destroying its inputs.
//
// A command names its inputs and outputs (each with the flag that named
// it) and calls Check before any work. Check refuses an output that is an
// input under any spelling: the same path, another relative spelling
// (./a, d/../a), a hard link (the same inode on the same device), a
// symbolic link to an input, or an input that is a symbolic link to the
// output; an output inside a folder the command reads; and two outputs at
// one path (-o X -checkpoint X). The error names both paths and both flags.
//
// Outputs that are symbolic links are written through: internal/safefile
// replaces the link's target and keeps the link, as a shell's > does. Check
// therefore judges an output by the file its links lead to.
package outguard
