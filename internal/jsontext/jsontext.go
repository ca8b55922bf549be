package jsontext

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// BOM is the UTF-8 byte-order mark.
var BOM = []byte{0xef, 0xbb, 0xbf}

// TrimBOM drops a byte-order mark that starts b (the start of a file).
func TrimBOM(b []byte) []byte { return bytes.TrimPrefix(b, BOM) }

// Hint explains the message of an encoding/json error when Go's words
// leave the user guessing; it returns "" when there is nothing to add.
func Hint(msg string) string {
	switch {
	case strings.Contains(msg, "invalid character 'N'"), strings.Contains(msg, "invalid character 'I'"),
		strings.Contains(msg, "in numeric literal") && strings.Contains(msg, "'I'"):
		return "NaN and Infinity are not JSON numbers: every number must be finite"
	case strings.Contains(msg, "invalid character 'ï'"):
		return "a UTF-8 byte-order mark (bytes EF BB BF) where JSON was expected: it may only start the file"
	}
	return ""
}

// Explain is err's message without Go's "json: " prefix, with Hint's
// explanation appended in parentheses.
func Explain(err error) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if h := Hint(msg); h != "" {
		msg += " (" + h + ")"
	}
	return msg
}

// CheckUTF8 returns an error naming the first byte of b that is not valid
// UTF-8, or nil.
func CheckUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return fmt.Errorf("byte %d (0x%02x) is not UTF-8: JSON text is UTF-8 (was the file saved in another encoding, such as Latin-1?)", i+1, b[i])
		}
		i += n
	}
	return nil
}
