package grid

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// detailKey is the context key under which Run hands each job the slot
// of its row's Detail.
type detailKey struct{}

type detailSlot struct{ raw json.RawMessage }

// withDetailSlot is the context a JobFunc runs in, and the slot SetDetail
// fills.
func withDetailSlot(ctx context.Context) (context.Context, *detailSlot) {
	s := &detailSlot{}
	return context.WithValue(ctx, detailKey{}, s), s
}

// SetDetail records v, as JSON, as the Detail of the row of the job Run
// runs with ctx (the JobFunc's context): what the job measures beyond
// numbers, such as a curve or names. A later call replaces an earlier one.
// It fails outside a job of Run, or when v cannot be written as JSON.
func SetDetail(ctx context.Context, v any) error {
	s, ok := ctx.Value(detailKey{}).(*detailSlot)
	if !ok {
		return errors.New("SetDetail: the context is not that of a job of Run")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("SetDetail: %w", err)
	}
	s.raw = b
	return nil
}
