// Package jsontext holds what every JSON reader of the project says the
// same way: a UTF-8 byte-order mark at the start of a file (accepted, as
// some editors write one), NaN and Infinity (not JSON numbers; Go's
// message, "invalid character 'N' looking for beginning of value", does
// not say so) and text that is not UTF-8 (which encoding/json would
// silently replace by U+FFFD, altering a name).
package jsontext
