package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/probably-submodular/crf/internal/safefile"
)

// ReuseEnv is the environment variable that sets the default ReusePolicy:
// "stale" reuses stored results of other code or params (with a warning),
// "current" or unset only those of the running code and the same params.
const ReuseEnv = "PSUB_REUSE"

// ReusePolicy says which stored results (RunGrid's rows, Stored files) may
// be reused instead of computed again.
type ReusePolicy int

const (
	// ReuseFromEnv reads ReuseEnv: ReuseCurrent when it is unset.
	ReuseFromEnv ReusePolicy = iota
	// ReuseCurrent reuses only results of the running code's source and the
	// same params; stale ones are computed again (the file keeps them).
	ReuseCurrent
	// ReuseStale also reuses stale results, and says so in a warning naming
	// how many and which code and params they came from.
	ReuseStale
)

func (p ReusePolicy) String() string {
	switch p {
	case ReuseCurrent:
		return "current"
	case ReuseStale:
		return ReuseEnv + "=stale"
	}
	return "from " + ReuseEnv
}

// resolve turns ReuseFromEnv into the policy the environment asks for.
func (p ReusePolicy) resolve() (ReusePolicy, error) {
	if p != ReuseFromEnv {
		return p, nil
	}
	switch v := strings.TrimSpace(os.Getenv(ReuseEnv)); v {
	case "", "current":
		return ReuseCurrent, nil
	case "stale":
		return ReuseStale, nil
	default:
		return 0, fmt.Errorf("%s=%q: want \"stale\" (reuse results of other code or params, with a warning) or \"current\"", ReuseEnv, v)
	}
}

// runningCode is the version to compare stored results with: override when
// set (tests), else CurrentCode (whose error leaves Source empty, so that
// nothing is reused).
func runningCode(override *CodeVersion) CodeVersion {
	if override != nil {
		return *override
	}
	v, _ := CurrentCode()
	return v
}

// staleness says why a result stored by code `stored` with params key
// `params` is not current for code `cur` and params `want`; "" when it is.
func staleness(stored CodeVersion, params string, cur CodeVersion, want string) string {
	var why []string
	switch {
	case stored.IsZero():
		why = append(why, "written before code versions were recorded")
	case !cur.Known():
		why = append(why, "the running code's source is unknown")
	case !stored.Same(cur):
		why = append(why, "other code")
	}
	if params != want {
		diff := paramsDiff(params, want, 4)
		why = append(why, "other params (differ in "+strings.Join(diff, ", ")+")")
	}
	return strings.Join(why, ", ")
}

// ErrNoStored is wrapped by Stored.Load's error when there is no result to
// use: no file, or a stale one that the policy does not reuse.
var ErrNoStored = errors.New("no usable stored result")

// Stored is one JSON file holding a computed value with what it depends on:
// the params (ParamsKey) and the code version (CurrentCode). Notebooks whose
// results are not a grid of jobs keep them this way.
type Stored struct {
	// Path is the file, e.g. ResultsPath("nb07-quick.json").
	Path string
	// Params is what the value depends on besides the code (a settings
	// struct); nil means nothing.
	Params any
	// Reuse is the policy (the zero value reads PSUB_REUSE).
	Reuse ReusePolicy
	// Code, when set, replaces CurrentCode as the running version (tests).
	Code *CodeVersion
}

// storedFile is the file's format. Files written before it (a bare value)
// are read as stale results without a code version.
type storedFile struct {
	Code   CodeVersion     `json:"code"`
	Params json.RawMessage `json:"params"`
	Saved  time.Time       `json:"saved"`
	Value  json.RawMessage `json:"value"`
}

// StoredStatus is what happened to a stored result.
type StoredStatus int

const (
	StoredMissing     StoredStatus = iota // no file: nothing loaded
	StoredCurrent                         // same code and params: loaded
	StoredStale                           // stale, not reused: nothing loaded
	StoredStaleReused                     // stale, reused under ReuseStale: loaded
	StoredComputed                        // computed now and saved (LoadOrRun)
)

// StoredReport says what Stored.Load or LoadOrRun did and why.
type StoredReport struct {
	Path    string
	Status  StoredStatus
	Running CodeVersion // the code running now
	Code    CodeVersion // the code of the file's result (zero when none or unrecorded)
	Saved   time.Time   // when the file's result was saved (zero when unknown)
	// Why says why the file's result is stale ("other code", "other params
	// (differ in Tol)", "unreadable: …"); "" when current.
	Why string
	// Before is, for StoredComputed, what the file held before: StoredMissing
	// or StoredStale.
	Before StoredStatus
}

// Loaded reports whether a value was taken from the file.
func (r StoredReport) Loaded() bool {
	return r.Status == StoredCurrent || r.Status == StoredStaleReused
}

func (r StoredReport) String() string {
	from := "stored by " + r.Code.String()
	if r.Code.IsZero() {
		from = "stored without a code version"
	}
	if !r.Saved.IsZero() {
		from += ", saved " + r.Saved.Local().Format("2006-01-02 15:04")
	}
	switch r.Status {
	case StoredMissing:
		return fmt.Sprintf("%s: no stored result", r.Path)
	case StoredCurrent:
		return fmt.Sprintf("reused the stored result %s (%s; same code and params)", r.Path, from)
	case StoredStale:
		return fmt.Sprintf("%s: the stored result is stale (%s; %s; running %s), not reused (%s=stale would reuse it)",
			r.Path, r.Why, from, r.Running, ReuseEnv)
	case StoredStaleReused:
		return fmt.Sprintf("WARNING: reused a STALE stored result %s (%s=stale): %s; %s; running %s",
			r.Path, ReuseEnv, r.Why, from, r.Running)
	case StoredComputed:
		why := "there was no stored result"
		if r.Before == StoredStale {
			why = fmt.Sprintf("the stored one was stale: %s; %s", r.Why, from)
		}
		return fmt.Sprintf("computed and stored %s (%s; %s)", r.Path, r.Running, why)
	}
	return r.Path
}

// Load reads the stored value into v when the policy allows: a result of the
// running code and the same params, or a stale one under ReuseStale. When
// it does not (no file, stale), the error wraps ErrNoStored and the report
// says why; other errors are a bad file name or params.
func (s Stored) Load(v any) (StoredReport, error) {
	rep := StoredReport{Path: s.Path, Running: runningCode(s.Code)}
	policy, err := s.Reuse.resolve()
	if err != nil {
		return rep, err
	}
	want, err := s.paramsKey()
	if err != nil {
		return rep, err
	}
	b, err := os.ReadFile(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		return rep, fmt.Errorf("%s: %w: no file (run the cell that computes it)", s.Path, ErrNoStored)
	}
	if err != nil {
		return rep, err
	}
	var f storedFile
	value := json.RawMessage(b)
	if err := json.Unmarshal(b, &f); err == nil && f.Value != nil && f.Params != nil {
		value = f.Value
		rep.Code, rep.Saved = f.Code, f.Saved
		var key bytes.Buffer
		if err := json.Compact(&key, f.Params); err != nil {
			rep.Why = "unreadable params: " + err.Error()
		} else {
			rep.Why = staleness(f.Code, key.String(), rep.Running, want)
		}
	} else if !json.Valid(b) {
		rep.Status, rep.Why = StoredStale, "unreadable: not JSON"
		return rep, fmt.Errorf("%s: %w: the file is not JSON", s.Path, ErrNoStored)
	} else {
		rep.Why = "written before code versions were recorded"
	}
	if rep.Why != "" && policy != ReuseStale {
		rep.Status = StoredStale
		return rep, fmt.Errorf("%w: %s", ErrNoStored, rep)
	}
	if err := json.Unmarshal(value, v); err != nil {
		rep.Status, rep.Why = StoredStale, "unreadable: "+err.Error()
		return rep, fmt.Errorf("%s: %w: the stored value does not decode: %v", s.Path, ErrNoStored, err)
	}
	rep.Status = StoredCurrent
	if rep.Why != "" {
		rep.Status = StoredStaleReused
	}
	return rep, nil
}

// Save writes v with the params and the running code version, atomically
// (a temporary file in the same folder, renamed over Path).
func (s Stored) Save(v any) error {
	key, err := s.paramsKey()
	if err != nil {
		return err
	}
	val, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	b, err := json.Marshal(storedFile{Code: runningCode(s.Code), Params: json.RawMessage(key), Saved: time.Now().UTC(), Value: val})
	if err != nil {
		return fmt.Errorf("%s: %w", s.Path, err)
	}
	return writeFileAtomic(s.Path, append(b, '\n'))
}

// paramsKey is ParamsKey(s.Params), "null" for nil params (as Save writes
// them).
func (s Stored) paramsKey() (string, error) {
	if s.Params == nil {
		return "null", nil
	}
	k, err := ParamsKey(s.Params)
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Path, err)
	}
	return k, nil
}

// LoadOrRun returns the value stored in s when the policy allows (see
// Stored.Load); otherwise it runs compute, saves its value and returns it.
// The report says which happened and why; print it.
func LoadOrRun[T any](s Stored, compute func() (T, error)) (T, StoredReport, error) {
	var v T
	rep, err := s.Load(&v)
	if err == nil {
		return v, rep, nil
	}
	if !errors.Is(err, ErrNoStored) {
		return v, rep, err
	}
	before := rep
	var zero T
	v, err = compute()
	if err != nil {
		return zero, rep, err
	}
	if err := s.Save(v); err != nil {
		return v, rep, err
	}
	rep.Status, rep.Before = StoredComputed, before.Status
	return v, rep, nil
}

// LoadStored is Stored{Path: path, Params: params}.Load(v).
func LoadStored(path string, params, v any) (StoredReport, error) {
	return Stored{Path: path, Params: params}.Load(v)
}

// Store is Stored{Path: path, Params: params}.Save(v).
func Store(path string, params, v any) error {
	return Stored{Path: path, Params: params}.Save(v)
}

// writeFileAtomic writes b to path through a temporary file in the same
// folder renamed into place (safefile.Write), so a reader sees the old file
// or the new one, never a part. It creates the folder.
func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := safefile.WriteBytes(path, b); err != nil {
		return fmt.Errorf("writing %w", err)
	}
	return nil
}
