package data

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// VisibleName returns an instance name that JSON can carry unchanged: each
// byte that is not part of valid UTF-8 becomes the four characters \xHH.
// JSON text is UTF-8, and encoding/json would write such a byte as U+FFFD,
// losing it without a word; ok is false when the name had to change, so
// that a writer can say so.
func VisibleName(name string) (visible string, ok bool) {
	if utf8.ValidString(name) {
		return name, true
	}
	var b strings.Builder
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, name[i])
		} else {
			b.WriteString(name[i : i+n])
		}
		i += n
	}
	return b.String(), false
}
