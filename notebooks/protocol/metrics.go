package protocol

import (
	"github.com/probably-submodular/crf/notebooks/grid"
	"github.com/probably-submodular/crf/psub"
)

// Metrics are what a row of a segmentation protocol measured
// (SegmentationExperiment.Run), named as in its results file: every fit's
// Fit and the C psub trained at; a "select" row's Selection, a "final"
// row's Scores; and, with warm starts, Warm.
type Metrics struct {
	Fit
	CPsub float64 `json:"c_psub"`
	*Selection
	*Scores
	*Warm
}

// Fit are the training metrics of TrainJob (see there).
type Fit struct {
	Iterations       int             `json:"iterations"`
	Stop             psub.StopReason `json:"stop"`
	Converged        grid.Flag       `json:"converged"`
	HardViolated     int             `json:"hard_violated"`
	QPMissed         int             `json:"qp_missed"`
	Problems         int             `json:"problems"`
	Scale            float64         `json:"scale"`
	Primal           float64         `json:"primal"`
	Gap              float64         `json:"gap"`
	HardActive       int             `json:"hard_active"`
	HardIntroduced   int             `json:"hard_introduced"`
	Margins          int64           `json:"margins"`
	MarginsInference int64           `json:"margins_inference"`
	TrainSeconds     float64         `json:"train_seconds"`
	Resumed          int             `json:"resumed"`
}

// Selection is a selection fit's score on the held-out images: region
// accuracy, class-averaged accuracy, and the one of them C is chosen by.
type Selection struct {
	ValAcc  float64 `json:"val_acc"`
	ValCavg float64 `json:"val_cavg"`
	Select  float64 `json:"select"`
}

// Scores are a final model's: region and class-averaged accuracy on its
// training and test images, mean pixel IoU of the foreground and VOC score
// on the test images, the test edges its inference truncated and the
// fraction of non-submodular test edges.
type Scores struct {
	TrainAcc      float64 `json:"train_acc"`
	TrainCavg     float64 `json:"train_cavg"`
	TestAcc       float64 `json:"test_acc"`
	TestCavg      float64 `json:"test_cavg"`
	TestIoU       float64 `json:"test_iou"`
	TestVOC       float64 `json:"test_voc"`
	TruncatedTest int     `json:"truncated_test"`
	NonSubTest    float64 `json:"nonsub_test"`
}

// Warm is what a warm-started fit started from (warmMetrics).
type Warm struct {
	From      float64   `json:"warm_from"`
	Other     grid.Flag `json:"warm_other"`
	Planes    int       `json:"warm_planes"`
	Recosted  int       `json:"warm_recosted"`
	Completed int       `json:"warm_completed"`
	Hard      int       `json:"warm_hard"`
}

// Row is a row of a segmentation protocol.
type Row = grid.Row[grid.Job, Metrics]

// Rows reads rows of a segmentation protocol. A row that does not read as
// one, or lacks its stage's metrics (a successful "select" row without
// Selection, "final" without Scores), is a failed row.
func Rows(rs []grid.Result) []Row {
	rows, _ := grid.Rows[grid.Job, Metrics](rs)
	for i, r := range rows {
		switch {
		case r.Error != "":
		case r.Job.Tag == "select" && r.Metrics.Selection == nil, r.Job.Tag == "final" && r.Metrics.Scores == nil:
			rows[i].Error = "row " + r.Job.Key() + ": no metrics of its stage"
		}
	}
	return rows
}

// Numbers of Metrics that tables compare.
var (
	TestAcc        = func(m Metrics) float64 { return m.TestAcc }
	TestCavg       = func(m Metrics) float64 { return m.TestCavg }
	NonSubTest     = func(m Metrics) float64 { return m.NonSubTest }
	HardActive     = func(m Metrics) float64 { return float64(m.HardActive) }
	HardIntroduced = func(m Metrics) float64 { return float64(m.HardIntroduced) }
)
