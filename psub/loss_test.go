package psub

import (
	"reflect"
	"strings"
	"testing"
)

// Every listed name gives a loss, in any case; the name a loss reports is
// listed and gives that loss back (a model file's loss reads back); the
// names results files use stay valid; anything else is an error that lists
// the names.
func TestLossByName(t *testing.T) {
	for _, name := range LossNames() {
		l, err := LossByName(strings.ToUpper(name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := LossByName(l.Name())
		if err != nil || !reflect.DeepEqual(back, l) {
			t.Errorf("%s gives %s, whose name gives %v (%v)", name, l.Name(), back, err)
		}
	}
	for name, want := range map[string]Loss{"hamming": Hamming{}, "avg": ClassAveraged{}, "": Hamming{}} {
		if l, err := LossByName(name); err != nil || !reflect.DeepEqual(l, want) {
			t.Errorf("%q: %v, %v; want %s", name, l, err, want.Name())
		}
	}
	_, err := LossByName("hinge")
	if err == nil || !strings.Contains(err.Error(), `"hinge"`) || !strings.Contains(err.Error(), strings.Join(LossNames(), ", ")) {
		t.Errorf("unknown loss: %v, want an error naming it and the accepted names", err)
	}
}
