package viz

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
)

// Progress is an in-place progress line for long cells. In a notebook it
// updates one transient HTML display; Done then displays a persistent
// summary, since transient output is not saved in the .ipynb. Outside a
// notebook it rewrites one line of standard error. Safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	title string
	total int
	start time.Time
	id    string
	out   io.Writer // outside a notebook
	last  time.Time
}

// NewProgress starts a progress line for total steps (0 if unknown).
func NewProgress(title string, total int) *Progress {
	p := &Progress{title: title, total: total, start: time.Now(), out: os.Stderr}
	if InNotebook() {
		p.id = "progress_" + gonbui.UniqueID()
	}
	return p
}

// Line is the text of the progress line after done steps.
func (p *Progress) Line(done int, msg string) string {
	el := time.Since(p.start).Seconds()
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", p.title)
	if p.total > 0 {
		frac := float64(done) / float64(p.total)
		const width = 20
		n := min(int(frac*width+0.5), width)
		fmt.Fprintf(&b, "[%s%s] %d/%d", strings.Repeat("#", n), strings.Repeat(".", width-n), done, p.total)
		if done > 0 && done < p.total {
			fmt.Fprintf(&b, ", %.0fs left", el/float64(done)*float64(p.total-done))
		}
	} else {
		fmt.Fprintf(&b, "%d", done)
	}
	fmt.Fprintf(&b, ", %.1fs", el)
	if msg != "" {
		fmt.Fprintf(&b, " — %s", msg)
	}
	return b.String()
}

// Update shows that done steps are finished; msg is an optional detail.
// Updates are rate-limited to a few per second.
func (p *Progress) Update(done int, msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond && done != p.total {
		return
	}
	p.last = time.Now()
	line := p.Line(done, msg)
	if p.id != "" {
		gonbui.UpdateHTML(p.id, "<pre>"+html.EscapeString(line)+"</pre>")
		return
	}
	fmt.Fprintf(p.out, "\r%s\033[K", line)
}

// Done clears the transient line and displays a persistent summary.
func (p *Progress) Done(summary string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	line := fmt.Sprintf("%s: done in %.1fs", p.title, time.Since(p.start).Seconds())
	if summary != "" {
		line += " — " + summary
	}
	if p.id != "" {
		gonbui.UpdateHTML(p.id, "")
		gonbui.DisplayHTML("<pre>" + html.EscapeString(line) + "</pre>")
		flush()
		return
	}
	fmt.Fprintf(p.out, "\r%s\033[K\n", line)
}
