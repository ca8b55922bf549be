package viz

import (
	"encoding/xml"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// liveTestFrame: a 2×2 grid with 5 edges, node 3 predicted wrong, edges 1
// and 4 marked.
func liveTestFrame(title string, acc, lo, hi float64) LiveFrame {
	return LiveFrame{
		Title: title,
		Note:  "re-fit in 0.01 s",
		Graph: LiveGraph{
			Name:   "g<0>",
			Pos:    [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}},
			Edges:  [][2]int{{0, 1}, {0, 2}, {1, 3}, {2, 3}, {0, 3}},
			Truth:  []int{0, 0, 1, 1},
			Pred:   []int{0, 0, 1, 0},
			Marked: []bool{false, true, false, false, true},
		},
		Metrics: []LiveMetric{
			{Name: "test accuracy", Value: acc, Format: "%.1f %%"},
			{Name: "objective", Value: hi, Lo: lo, Hi: hi, Lower: true},
		},
	}
}

// wellFormed parses the HTML as XML: every element closed, attributes
// quoted, text escaped.
func wellFormed(t *testing.T, h string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(h))
	for {
		_, err := d.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, h)
		}
	}
}

func TestLiveHTML(t *testing.T) {
	h, err := LiveHTML(liveTestFrame(`C4 & "friends"`, 75, 0.5, 0.5), nil)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, h)
	for _, want := range []string{
		`data-title="C4 &amp; &#34;friends&#34;"`,
		`data-metric="test accuracy" data-value="75"`,
		`data-metric="objective" data-value="0.5"`,
		`75.0 %`,
		`g&lt;0&gt;: 1 of 4 nodes wrong`,
		`data-marked="2"`,
		`re-fit in 0.01 s`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("missing %q in\n%s", want, h)
		}
	}
	if n := strings.Count(h, `stroke="`+liveMarked+`" stroke-width="3"/>`); n != 2 {
		t.Errorf("%d marked lines, want 2 edges", n)
	}
	// The caption is HTML, which wraps, not SVG text, which runs past the
	// drawing's edge ("…(TGC truncates").
	if svg := regexp.MustCompile(`(?s)<svg.*?</svg>`).FindString(h); strings.Contains(svg, "<text") {
		t.Errorf("the graph's caption is SVG text, which does not wrap:\n%s", svg)
	}
	if n := strings.Count(h, `stroke="black" stroke-width="2"`); n != 1 {
		t.Errorf("%d ringed nodes, want 1", n)
	}
	if strings.Contains(h, " was ") || strings.Contains(h, "<script") {
		t.Error("a first frame shows a previous value or carries a script")
	}
	// No trace yet (and never, in a static page): no empty box, and no
	// point drawn on its edge.
	for _, p := range regexp.MustCompile(`(?s)<svg[^>]*class="psub-live-metric".*?</svg>`).FindAllString(h, -1) {
		if strings.Contains(p, "<rect") || strings.Contains(p, "<circle") {
			t.Errorf("a first frame's panel draws a trace box or point:\n%s", p)
		}
	}
	// A point interval is a value, a proper one shows both ends and plots
	// the upper end.
	if strings.Contains(h, "0.5 … 0.5") {
		t.Error("point interval printed as an interval")
	}
	h2, err := LiveHTML(liveTestFrame("TGC", 80, 0.25, 0.75), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h2, "0.25 … 0.75") || !strings.Contains(h2, `data-metric="objective" data-value="0.75"`) {
		t.Errorf("interval [0.25, 0.75] not drawn as such:\n%s", h2)
	}
}

// The earlier frames stay as a faint trace: one grey point per earlier
// frame, the current value as the one bold point, and the direction of the
// last change.
func TestLiveHTMLTrace(t *testing.T) {
	var prev []LiveFrame
	for i := range 15 {
		prev = append(prev, liveTestFrame("step "+strconv.Itoa(i), 60+float64(i), 0.9-0.01*float64(i), 0.9-0.01*float64(i)))
	}
	cur := liveTestFrame("now", 70, 0.95, 0.95) // accuracy down from 74, objective up from 0.76
	h, err := LiveHTML(cur, prev)
	if err != nil {
		t.Fatal(err)
	}
	wellFormed(t, h)
	panels := regexp.MustCompile(`(?s)<svg[^>]*class="psub-live-metric".*?</svg>`).FindAllString(h, -1)
	if len(panels) != 2 {
		t.Fatalf("%d metric panels, want 2", len(panels))
	}
	for _, p := range panels {
		// Only the last 12 earlier frames: steps 3 … 14.
		if n := strings.Count(p, `fill="#ccc"`); n != liveTraceLen {
			t.Errorf("%d trace points, want %d", n, liveTraceLen)
		}
		if strings.Contains(p, "<title>step 2:") || !strings.Contains(p, "<title>step 3:") {
			t.Error("the trace does not hold exactly the last 12 frames")
		}
		if n := strings.Count(p, `fill="#1f4e9c"`); n != 1 {
			t.Errorf("%d current points, want 1", n)
		}
		// Every point lies inside the trace box, its radius included.
		box := regexp.MustCompile(`<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"`).FindStringSubmatch(p)
		if box == nil {
			t.Fatalf("no trace box in a panel with a trace:\n%s", p)
		}
		bx, by, bw, bh := atof(t, box[1]), atof(t, box[2]), atof(t, box[3]), atof(t, box[4])
		for _, c := range regexp.MustCompile(`<circle cx="([\d.]+)" cy="([\d.]+)" r="([\d.]+)"`).FindAllStringSubmatch(p, -1) {
			cx, cy, r := atof(t, c[1]), atof(t, c[2]), atof(t, c[3])
			if cx-r < bx || cx+r > bx+bw || cy-r < by || cy+r > by+bh {
				t.Errorf("point (%g, %g) r %g outside the trace box %g,%g %g×%g", cx, cy, r, bx, by, bw, bh)
			}
		}
	}
	if strings.Contains(h, "the values of earlier settings show here") {
		t.Error("a frame with a trace says the trace is yet to come")
	}
	if !strings.Contains(panels[0], "▼ was 74.0 %") || !strings.Contains(panels[1], "▲ was 0.76") {
		t.Errorf("direction of the last change:\n%s\n%s", panels[0], panels[1])
	}
	// Colour says better or worse: accuracy fell and the objective (lower is
	// better) rose, so both changes are worse, red.
	if !strings.Contains(panels[0], `fill="#a33">▼ was 74.0 %`) || !strings.Contains(panels[1], `fill="#a33">▲ was 0.76`) {
		t.Errorf("a change for the worse is not red:\n%s\n%s", panels[0], panels[1])
	}
	// The current point is the rightmost and, for a value above all earlier
	// ones, the topmost.
	cx := regexp.MustCompile(`<circle cx="([0-9.]+)" cy="([0-9.]+)" r="([0-9.]+)" fill="(#ccc|#1f4e9c)"`)
	var lastX, curX, curY, minY float64 = 0, 0, 0, math.Inf(1)
	for _, m := range cx.FindAllStringSubmatch(panels[1], -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		if m[4] == "#1f4e9c" {
			curX, curY = x, y
		} else {
			lastX = math.Max(lastX, x)
		}
		minY = math.Min(minY, y)
	}
	if !(curX > lastX) || curY != minY {
		t.Errorf("current point at (%g, %g): trace ends at x = %g, top at y = %g", curX, curY, lastX, minY)
	}
}

func TestLiveFrameCheck(t *testing.T) {
	bad := map[string]func(*LiveFrame){
		"labels":     func(f *LiveFrame) { f.Graph.Pred = f.Graph.Pred[:3] },
		"label 2":    func(f *LiveFrame) { f.Graph.Truth[0] = 2 },
		"marks":      func(f *LiveFrame) { f.Graph.Marked = f.Graph.Marked[:2] },
		"edge":       func(f *LiveFrame) { f.Graph.Edges[2] = [2]int{1, 4} },
		"position":   func(f *LiveFrame) { f.Graph.Pos[1] = [2]float64{math.NaN(), 0} },
		"metric NaN": func(f *LiveFrame) { f.Metrics[0].Value = math.NaN() },
		"metric Inf": func(f *LiveFrame) { f.Metrics[1].Hi = math.Inf(1) },
	}
	for what, change := range bad {
		f := liveTestFrame("x", 1, 0, 0)
		change(&f)
		if _, err := LiveHTML(f, nil); err == nil {
			t.Errorf("%s: no error", what)
		}
	}
	f := liveTestFrame("x", 1, 0, 0)
	f.Graph.Marked = nil
	if h, err := LiveHTML(f, nil); err != nil || !strings.Contains(h, `data-marked="0"`) {
		t.Errorf("no marks: %v", err)
	}
}

func TestLiveSessionCheck(t *testing.T) {
	ok := LiveSession{Controls: []LiveControl{{Label: "set", Options: []string{"a", "b"}, Value: 1}, {Label: "C", Min: -2, Max: 2, Value: -2}}}
	if err := ok.check(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []LiveSession{
		{},
		{Controls: make([]LiveControl, maxLiveControls+1)},
		{Controls: []LiveControl{{Label: "set", Options: []string{"a"}, Value: 1}}},
		{Controls: []LiveControl{{Label: "C", Min: 2, Max: 2}}},
		{Controls: []LiveControl{{Label: "C", Min: 0, Max: 3, Value: 4}}},
	} {
		if err := s.check(); err == nil {
			t.Errorf("%+v: no error", s)
		}
	}
}

// Outside a notebook RunLive computes the default frame, prints it and
// returns: it must never wait for a browser there.
func TestRunLiveOutsideNotebook(t *testing.T) {
	if InNotebook() {
		t.Skip("in a notebook")
	}
	calls := 0
	err := RunLive(LiveSession{Controls: []LiveControl{{Label: "C", Min: 0, Max: 4, Value: 3}}}, func(p []int) (LiveFrame, error) {
		calls++
		if len(p) != 1 || p[0] != 3 {
			t.Errorf("frame asked for %v, want the default [3]", p)
		}
		return liveTestFrame("x", 1, 0, 0), nil
	})
	if err != nil || calls != 1 {
		t.Errorf("RunLive: %v after %d frames, want 1", err, calls)
	}
	bad := liveTestFrame("x", 1, 0, 0)
	bad.Graph.Truth = nil
	if err := RunLive(LiveSession{Controls: []LiveControl{{Label: "C", Min: 0, Max: 4}}}, func([]int) (LiveFrame, error) { return bad, nil }); err == nil {
		t.Error("a bad default frame gave no error")
	}
}

func TestHeadlessRunner(t *testing.T) {
	for _, c := range []struct {
		cmds [][]string
		want bool
	}{
		{[][]string{{"/tmp/gonb_1/gonb_1"}, {"/root/go/bin/gonb", "--kernel", "k.json"}, {"/usr/bin/python3", "/usr/bin/jupyter-nbconvert", "--to", "notebook", "--execute", "x.ipynb"}}, true},
		{[][]string{{"gonb"}, {"python3", "-m", "nbconvert", "--execute", "x.ipynb"}}, true},
		{[][]string{{"gonb"}, {"/usr/bin/python3", "/usr/local/bin/papermill", "in.ipynb", "out.ipynb"}}, true},
		{[][]string{{"gonb"}, {"/usr/bin/python3", "/usr/bin/jupyter-execute", "x.ipynb"}}, true},
		// The notebook server, whatever the notebook is called.
		{[][]string{{"gonb"}, {"/usr/bin/python3", "/usr/bin/jupyter-notebook", "--no-browser", "--notebook-dir", "nbconvert"}}, false},
		{[][]string{{"gonb"}, {"/usr/bin/python3", "/usr/bin/jupyter-notebook", "--port", "8888", "papermill"}}, false},
		{nil, false},
	} {
		if got := headlessRunner(c.cmds); (got != "") != c.want {
			t.Errorf("headlessRunner(%q) = %q, want headless %v", c.cmds, got, c.want)
		}
	}
}

// ancestorArgs reads this process's own ancestry: its first entry is the
// parent's command line (the go tool or the test binary's caller).
func TestAncestorArgs(t *testing.T) {
	if _, err := os.Stat("/proc/self/cmdline"); err != nil {
		t.Skip("no /proc")
	}
	self := ancestorArgs(os.Getpid(), 1)
	if len(self) != 1 || len(self[0]) == 0 || self[0][0] != os.Args[0] {
		t.Fatalf("ancestorArgs(self) = %q, want [%q …]", self, os.Args)
	}
	if up := ancestorArgs(os.Getpid(), 50); len(up) < 2 || len(up) > 50 {
		t.Errorf("%d ancestors", len(up))
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
