package grid

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
)

// ErrRowEdited is wrapped by the error of a results row whose content no
// longer matches its digest.
var ErrRowEdited = errors.New(`the row does not match its "digest": it was changed after it was written (a results row is measured, not edited: run its job again)`)

// rowDigest is the SHA-256 (hex) of r's JSON as appendResult writes it,
// without a digest. Rows carry it on disk only: appendResult sets it and
// the readers check and clear it, so a Result in memory never has one.
func rowDigest(r Result) (string, error) {
	r.Digest = ""
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// checkDigest checks and clears the digest of a row read from a file.
// Rows written before rows had digests have none and are taken as they are.
func checkDigest(r *Result) error {
	d := r.Digest
	if d == "" {
		return nil
	}
	r.Digest = ""
	// The digest covers the row as written: a row whose JSON holds what
	// encoding/json would not write back the same (a metric spelled 1e0)
	// reads as a changed row, which it is.
	got, err := rowDigest(*r)
	if err != nil {
		return err
	}
	if got != d {
		return ErrRowEdited
	}
	return nil
}
