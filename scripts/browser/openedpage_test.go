package browser

import (
	"fmt"
	"time"
)

// Opened is what a reader sees on opening a notebook in Jupyter's UI,
// before running anything: whether Jupyter trusts it and how its saved
// outputs render. Jupyter runs the scripts of saved HTML outputs, and shows
// saved markdown outputs, only in a trusted notebook; an untrusted one shows
// its HTML sanitised (no scripts, so no echarts chart) and drops its
// markdown outputs, while PNG images show either way.
type Opened struct {
	Trusted   bool    // Jupyter.notebook.trusted
	Indicator string  // the toolbar's trust indicator: "Trusted" or "Not Trusted"
	Charts    []Chart // the charts the saved outputs declare
	Images    []Image // the images of the saved outputs
	Tables    int     // tables in rendered markdown outputs (the header's table)
}

// Problems lists how the opened notebook differs from a trusted one whose
// saved charts, images and markdown tables all show; nil when it does not.
func (o Opened) Problems() []string {
	var out []string
	if !o.Trusted || o.Indicator != "Trusted" {
		out = append(out, fmt.Sprintf("not trusted (Jupyter.notebook.trusted %v, toolbar says %q)", o.Trusted, o.Indicator))
	}
	if len(o.Charts) == 0 {
		out = append(out, "no echarts chart in the saved outputs")
	}
	for _, c := range o.Charts {
		if c.Problem != "" {
			out = append(out, fmt.Sprintf("saved chart #%s not drawn: %s", c.ID, c.Problem))
		}
	}
	pngs := 0
	for _, im := range o.Images {
		if !im.Complete || im.Width == 0 {
			out = append(out, fmt.Sprintf("saved image did not load (complete %v, naturalWidth %d): %s", im.Complete, im.Width, im.Src))
		}
		if im.PNG {
			pngs++
		}
	}
	if pngs == 0 {
		out = append(out, "no saved PNG image shows")
	}
	if o.Tables == 0 {
		out = append(out, "no markdown table shows (the header's saved markdown output)")
	}
	return out
}

// openedJS reads the trust state and counts the tables of rendered
// markdown outputs.
const openedJS = `(() => ({
  trusted: Jupyter.notebook.trusted === true,
  indicator: ((document.querySelector('#notification_trusted') || {}).textContent || '').trim(),
  tables: document.querySelectorAll('#notebook .output_markdown table').length
}))()`

// outputImages selects the images of a notebook's outputs.
const outputImages = "#notebook .output_area img"

// ReadOpened waits up to chartWait for the saved charts to draw and for the
// images to load, then reads what the notebook shows. The page must hold a
// fully loaded notebook.
func (p *Page) ReadOpened(chartWait time.Duration) (Opened, error) {
	// The trust indicator is set when the notebook has loaded.
	if err := p.WaitFor("the trust indicator", `document.querySelector('#notification_trusted') && document.querySelector('#notification_trusted').textContent.trim() !== ''`,
		30*time.Second, 200*time.Millisecond); err != nil {
		return Opened{}, err
	}
	p.WaitCharts(chartWait)
	p.WaitImages(outputImages, 30*time.Second)
	o, err := Eval[Opened](p, openedJS, time.Minute)
	if err != nil {
		return o, fmt.Errorf("reading the trust state: %w", err)
	}
	if o.Charts, err = p.Charts(); err != nil {
		return o, err
	}
	if o.Images, err = p.Images(outputImages); err != nil {
		return o, err
	}
	return o, nil
}
