package data

import (
	"encoding/json"
	"testing"
)

func TestVisibleName(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{"cow-001", "cow-001", true},
		{"vache-été", "vache-été", true},
		{"", "", true},
		{"a\xffb", `a\xffb`, false},
		{"\xc3", `\xc3`, false},                 // a truncated two-byte sequence
		{"é\xe2\x82", `é\xe2\x82`, false},       // a truncated three-byte one
		{"\xed\xa0\x80", `\xed\xa0\x80`, false}, // a surrogate, not UTF-8
	} {
		got, ok := VisibleName(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("VisibleName(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
		// What JSON stores is what VisibleName returned, byte for byte.
		b, _ := json.Marshal(got)
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != got {
			t.Errorf("%q does not survive JSON: %q", got, back)
		}
	}
}
