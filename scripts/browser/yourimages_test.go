package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLiveYourImages runs notebook 09 in Jupyter's UI like
// TestLiveControls runs 07: every cell must pass, the live section must
// draw its default (C4, C = 1), and picking C0 in the constraint-set
// control must redraw it with C0's held-out accuracy, which the notebook's
// data make lower; the stop button must end the cell.
func TestLiveYourImages(t *testing.T) {
	r := startLiveSection(t, "notebooks/09-your-images.ipynb")
	p := r.p
	d0, err := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	const acc = "held-out pixel accuracy"
	if !strings.HasPrefix(d0.Title, "C4, C = 1") || d0.Metrics[acc] <= 0 {
		t.Fatalf("the default state drew %q with metrics %v; want C4 at C = 1 and its accuracy", d0.Title, d0.Metrics)
	}
	if _, err := Eval[bool](p, `(() => {
		const sel = document.querySelector('[data-control="constraint set"] select');
		const opt = [...sel.options].find(o => o.text === 'C0');
		sel.value = opt.value; sel.dispatchEvent(new Event('change'));
		return true;
	})()`, 10*time.Second); err != nil {
		t.Fatalf("choosing C0: %v", err)
	}
	cond := fmt.Sprintf(`(() => {
		const d = document.querySelector('.psub-live'), s = document.querySelector('.psub-live-status');
		if (s && s.dataset.state === 'error') return 'error: ' + s.textContent;
		return d && d.dataset.title.startsWith('C0, C = 1') && s.dataset.state === 'drawn' && parseInt(s.dataset.count) > %d ? 'drawn' : '';
	})()`, d0.Count)
	if st, err := poll(p, cond, 2*time.Minute); err != nil || st != "drawn" {
		t.Fatalf("waiting for C0's redraw: %q, %v", st, err)
	}
	c0, err := Eval[liveDrawing](p, liveDrawingJS, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("C4: %v; C0: %v", d0.Metrics, c0.Metrics)
	if !(c0.Metrics[acc] < d0.Metrics[acc]) {
		t.Errorf("C0's held-out accuracy %v is not below C4's %v", c0.Metrics[acc], d0.Metrics[acc])
	}
	r.stop(t, c0)
}
