package protocol

import (
	"fmt"
	"os"
	"strings"

	"github.com/probably-submodular/crf/data/runenv"
)

// Profile is how much of a protocol runs.
type Profile string

const (
	// Tiny runs the protocol's code path on a few examples (unit tests, smoke runs).
	Tiny Profile = "tiny"
	// Quick is a reduced run of minutes on two cores: fewer images, folds and
	// values of C (each protocol says which).
	Quick Profile = "quick"
	// Full is the paper's protocol.
	Full Profile = "full"
)

// Profiles lists the profiles, smallest first.
func Profiles() []Profile { return []Profile{Tiny, Quick, Full} }

// ParseProfile reads a profile name.
func ParseProfile(s string) (Profile, error) {
	for _, p := range Profiles() {
		if s == string(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown profile %q (want %s)", s, strings.Join([]string{string(Tiny), string(Quick), string(Full)}, ", "))
}

// MustEnvProfile is EnvProfile for notebooks, like regexp.MustCompile: a
// bad $PSUB_PROFILE panics with the error (the cell shows it).
func MustEnvProfile() Profile {
	p, err := EnvProfile()
	if err != nil {
		panic(err)
	}
	return p
}

// EnvProfile is the profile named by $PSUB_PROFILE (runenv.ProfileVar),
// which scripts/reproduce and scripts/notebook set; unset means Quick.
// Unlike runenv.Profile, which only labels a page, it refuses a name it
// does not know. A bad value is an error that
// names the variable.
func EnvProfile() (Profile, error) {
	v := strings.TrimSpace(os.Getenv(runenv.ProfileVar))
	if v == "" {
		return Quick, nil
	}
	p, err := ParseProfile(v)
	if err != nil {
		return "", fmt.Errorf("PSUB_PROFILE: %w", err)
	}
	return p, nil
}
