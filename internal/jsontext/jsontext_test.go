package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": NaN}`, "NaN and Infinity"},
		{`{"a": Infinity}`, "NaN and Infinity"},
		{`{"a": -Infinity}`, "NaN and Infinity"},
		{"\ufeff{}", "byte-order mark"},
	} {
		var v any
		err := json.Unmarshal([]byte(c.in), &v)
		if err == nil {
			t.Fatalf("%q decoded", c.in)
		}
		if got := Explain(err); !strings.Contains(got, c.want) {
			t.Errorf("Explain(%q) = %q, want it to mention %q", c.in, got, c.want)
		}
	}
	var v any
	if got := Explain(json.Unmarshal([]byte(`{"a": x}`), &v)); strings.Contains(got, "(") {
		t.Errorf("an ordinary syntax error got a hint: %q", got)
	}
}

func TestCheckUTF8(t *testing.T) {
	if err := CheckUTF8([]byte(`{"name":"Käse"}`)); err != nil {
		t.Fatal(err)
	}
	err := CheckUTF8([]byte("{\"name\":\"\xff\xfe\"}"))
	if err == nil || !strings.Contains(err.Error(), "byte 10 (0xff)") {
		t.Fatalf("CheckUTF8 = %v, want byte 10 named", err)
	}
	if got := TrimBOM([]byte("\ufeff{}")); string(got) != "{}" {
		t.Fatalf("TrimBOM = %q", got)
	}
}
