package viz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
)

// Live controls for the notebooks: GoNB widgets (selects, sliders, a stop
// button) wired to a function that turns their positions into a LiveFrame.
// RunLive owns the cell while it runs:
//
//   - It draws the default positions' frame first, always.
//   - Without a browser (the headless renders of scripts/reproduce and CI,
//     where a widget's Done would wait for a front-end that never comes) it
//     stops there, under a note that the controls need the GoNB kernel.
//     The headless case is detected by PSUB_HEADLESS=1 or, failing that, by
//     a probe that no front-end answers within liveProbe.
//   - In a browser it shows the controls and redraws in place after every
//     change, until the stop button is pressed or no change came for
//     LiveSession.Idle; then it replaces the controls by a line saying so,
//     and the cell ends (a cell lives only while its program runs).
//
// Changes reach a Latest: the listeners are subscribed before the widgets
// are shown, so no change is lost, and a change that arrives while a frame
// is being computed supersedes it (that frame is not drawn).

// LiveControl is one control: a select over Options when they are given,
// else a slider over the integer positions Min … Max, with MinLabel and
// MaxLabel written at its ends. Value is the initial option index or
// position.
type LiveControl struct {
	Label              string
	Options            []string
	Min, Max           int
	MinLabel, MaxLabel string
	Value              int
}

func (c LiveControl) valid(v int) bool {
	if c.Options != nil {
		return v >= 0 && v < len(c.Options)
	}
	return v >= c.Min && v <= c.Max
}

// LiveSession describes a live section.
type LiveSession struct {
	Title    string // above the controls
	Controls []LiveControl
	// Idle ends the session after this long without a change (0 means 10
	// minutes; PSUB_LIVE_IDLE, a Go duration such as "5s", overrides it,
	// for tests that run a whole notebook).
	Idle time.Duration
}

// liveProbe is how long RunLive waits for a browser to answer, when
// Headless does not rule one out, before drawing the default state without
// controls (GoNB itself waits 3 s for the browser's connection).
const liveProbe = 15 * time.Second

// maxLiveControls bounds the controls of a session (their positions are an
// array, so that Latest can compare them).
const maxLiveControls = 8

type livePositions [maxLiveControls]int

func (s LiveSession) check() error {
	if len(s.Controls) == 0 || len(s.Controls) > maxLiveControls {
		return fmt.Errorf("live session %q: %d controls, want 1 … %d", s.Title, len(s.Controls), maxLiveControls)
	}
	for i, c := range s.Controls {
		if c.Options == nil && c.Min >= c.Max {
			return fmt.Errorf("live session %q: control %d (%s): slider over %d … %d", s.Title, i, c.Label, c.Min, c.Max)
		}
		if !c.valid(c.Value) {
			return fmt.Errorf("live session %q: control %d (%s): initial value %d out of range", s.Title, i, c.Label, c.Value)
		}
	}
	return nil
}

// StaticNote is the note under the default frame of a live section that
// runs without a browser.
const StaticNote = "*This is the default state only: the controls of this section need the GoNB kernel in a browser. " +
	"Open the notebook with `scripts/notebook` (see the README, Notebooks) and run this cell to move them; " +
	"every change re-fits and redraws in place.*"

// Headless reports why a live section must not wait for a browser, or ""
// when it may try: not running in a notebook at all, PSUB_HEADLESS=1, or a
// headless notebook runner (nbconvert, nbclient, jupyter-execute, papermill)
// among the processes above this one, which is how scripts/reproduce and CI
// run the notebooks. It must be known before anything talks to the browser:
// GoNB's first use of comms displays a script that installs its
// connection, and without a browser nothing ever removes it from the
// output (the static page would carry it).
func Headless() string {
	if !InNotebook() {
		return "not in a notebook"
	}
	if os.Getenv("PSUB_HEADLESS") == "1" {
		return "PSUB_HEADLESS=1"
	}
	return headlessRunner(ancestorArgs(os.Getppid(), 10))
}

// headlessRunner returns the first process, of the command lines given
// (each a list of arguments), that runs notebooks without a browser, or "".
// Only the program and the script or module it runs are looked at (the
// first three arguments, and what follows -m), not the notebook's name.
func headlessRunner(cmds [][]string) string {
	runners := []string{"jupyter-nbconvert", "jupyter-execute", "nbconvert", "nbclient", "papermill"}
	for _, args := range cmds {
		for i, a := range args {
			if (i < 3 || args[i-1] == "-m") && slices.Contains(runners, filepath.Base(a)) {
				return "run by " + strings.Join(args[:min(len(args), 3)], " ")
			}
		}
	}
	return ""
}

// ancestorArgs returns the command lines of pid and up to depth processes
// above it (Linux /proc; nothing elsewhere).
func ancestorArgs(pid, depth int) [][]string {
	var out [][]string
	for ; pid > 1 && depth > 0; depth-- {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			break
		}
		out = append(out, strings.Split(strings.TrimRight(string(b), "\x00"), "\x00"))
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			break
		}
		// The command may hold spaces: the fields follow the last ')'.
		f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
		if len(f) < 2 {
			break
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			break
		}
	}
	return out
}

// RunLive runs a live section (see the comment above LiveControl): frame
// turns the controls' positions (one per control, in order) into what to
// draw. It returns when the section has ended; the error is that of the
// default positions' frame or of the session's description (errors of later
// frames are shown in the section and the controls stay live).
func RunLive(s LiveSession, frame func(pos []int) (LiveFrame, error)) error {
	if err := s.check(); err != nil {
		return err
	}
	if s.Idle == 0 {
		s.Idle = 10 * time.Minute
	}
	if d, err := time.ParseDuration(os.Getenv("PSUB_LIVE_IDLE")); err == nil && d > 0 {
		s.Idle = d
	}
	n := len(s.Controls)
	var start livePositions
	for i, c := range s.Controls {
		start[i] = c.Value
	}
	f0, err := frame(start[:n])
	h0 := ""
	if err == nil {
		h0, err = LiveHTML(f0, nil)
	}
	if err != nil {
		return fmt.Errorf("live session %q: the default state: %w", s.Title, err)
	}
	if why := Headless(); why != "" {
		if !InNotebook() {
			fmt.Printf("%s: %s (live controls need a notebook)\n", f0.Title, liveSummary(f0))
			return nil
		}
		ShowHTML(h0)
		ShowMarkdown(StaticNote)
		return nil
	}
	if !frontEnd(liveProbe) {
		ShowHTML(h0)
		ShowMarkdown(fmt.Sprintf("*The controls could not connect to this page: GoNB's connection to the browser did not answer within %s. "+
			"Run the cell again (if it keeps failing, restart the kernel). Shown: the default state.*", liveDuration(liveProbe)))
		return nil
	}

	uid := gonbui.UniqueID()
	root := "psub-live-" + uid
	ctlDisplay, statusDisplay, drawDisplay := root+"-ctl", root+"-status", root+"-draw"
	var tb strings.Builder
	fmt.Fprintf(&tb, `<div id="%s" class="psub-live-controls" style="font-family:sans-serif;font-size:13px">`, root)
	if s.Title != "" {
		fmt.Fprintf(&tb, `<div style="font-weight:bold">%s</div>`, html.EscapeString(s.Title))
	}
	tb.WriteString(`<table style="border:none">`)
	for i, c := range s.Controls {
		fmt.Fprintf(&tb, `<tr><td style="text-align:left">%s</td><td style="text-align:left"><span style="display:inline-flex;align-items:center;gap:6px">%s<span id="%s-%d" data-control="%s"></span>%s</span></td></tr>`,
			html.EscapeString(c.Label), html.EscapeString(c.MinLabel), root, i, html.EscapeString(c.Label), html.EscapeString(c.MaxLabel))
	}
	fmt.Fprintf(&tb, `<tr><td></td><td style="text-align:left"><span id="%s-stop"></span> (the controls end after %s without a change)</td></tr></table></div>`, root, liveDuration(s.Idle))
	gonbui.UpdateHTML(ctlDisplay, tb.String())
	status := func(state string, count int, text string) {
		col := "#555"
		if state == "error" {
			col = "#a00"
		}
		gonbui.UpdateHTML(statusDisplay, fmt.Sprintf(`<div class="psub-live-status" data-state="%s" data-count="%d" style="font-family:sans-serif;font-size:12px;color:%s">%s</div>`,
			state, count, col, html.EscapeString(text)))
	}
	status("connecting", 0, "connecting the controls …")
	gonbui.UpdateHTML(drawDisplay, h0)

	// Listen before the widgets exist: every value they send, the first
	// included, reaches latest.
	latest := NewLatest(start)
	for i, c := range s.Controls {
		ch := comms.Listen[int](fmt.Sprintf("/psub/live/%s/%d", uid, i))
		defer ch.Close()
		go func() {
			for v := range ch.C {
				if c.valid(v) {
					latest.Set(func(p livePositions) livePositions { p[i] = v; return p })
				}
			}
		}()
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	stopAddr := fmt.Sprintf("/psub/live/%s/stop", uid)
	stopCh := comms.Listen[int](stopAddr)
	defer stopCh.Close()
	go func() {
		for v := range stopCh.C {
			if v > 0 { // the button sends 0 when it is created
				stop()
			}
		}
	}()
	built := make(chan struct{})
	go func() {
		for i, c := range s.Controls {
			addr, parent := fmt.Sprintf("/psub/live/%s/%d", uid, i), fmt.Sprintf("%s-%d", root, i)
			if c.Options != nil {
				widgets.Select(c.Options).SetDefault(c.Value).WithAddress(addr).AppendTo(parent).Done()
			} else {
				widgets.Slider(c.Min, c.Max, c.Value).WithAddress(addr).AppendTo(parent).Done()
			}
		}
		widgets.Button("stop the live controls").WithAddress(stopAddr).AppendTo(root + "-stop").Done()
		close(built)
	}()
	select {
	case <-built:
	case <-time.After(time.Minute):
		gonbui.UpdateHTML(ctlDisplay, "")
		status("error", 0, "the controls did not connect to the kernel within a minute; run the cell again (the drawing below is the default state)")
		return nil
	}

	// drawnPos is what the drawing shows; last and history its frame and
	// the frames before it.
	drawn, drawnPos, last := 0, start, f0
	var history []LiveFrame
	ready := func() { status("ready", drawn, "ready: "+last.Title) }
	ready()
	reason := ""
	for reason == "" {
		if ctx.Err() != nil {
			reason = "the stop button was pressed"
			break
		}
		ictx, cancel := context.WithTimeout(ctx, s.Idle)
		p, err := latest.Next(ictx)
		cancel()
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			reason = fmt.Sprintf("no change for %s", liveDuration(s.Idle))
			continue
		case err != nil:
			reason = "the stop button was pressed"
			continue
		case p == drawnPos:
			ready() // back where the drawing is (a superseded fit was dropped)
			continue
		}
		status("fitting", drawn, "re-fitting …")
		t0 := time.Now()
		f, err := frame(p[:n])
		if latest.Superseded() {
			continue // a newer position is waiting: do not draw this one
		}
		prev := append(history, last)
		if len(prev) > liveTraceLen {
			prev = prev[1:]
		}
		var h string
		if err == nil {
			h, err = LiveHTML(f, prev)
		}
		if err != nil {
			status("error", drawn, err.Error())
			continue
		}
		gonbui.UpdateHTML(drawDisplay, h)
		history, last, drawnPos = prev, f, p
		drawn++
		status("drawn", drawn, fmt.Sprintf("drawn in %.2f s: %s", time.Since(t0).Seconds(), f.Title))
	}
	gonbui.UpdateHTML(ctlDisplay, fmt.Sprintf(`<div class="psub-live-ended" style="font-family:sans-serif;font-size:13px">The live controls have ended (%s). Run the cell again to use them.</div>`, html.EscapeString(reason)))
	status("ended", drawn, fmt.Sprintf("%d redraws; the drawing below is the last state: %s", drawn, last.Title))
	return nil
}

// frontEnd reports whether a browser answers GoNB's comms within timeout:
// a script sends a value back through gonb_comm, which only a browser runs.
// It tries three times, a third of timeout each: GoNB's script gives up on
// its connection when the kernel has not acknowledged it within 0.5 s (a
// busy machine), and the next use of comms installs it again.
func frontEnd(timeout time.Duration) bool {
	for range 3 {
		if probeOnce(timeout / 3) {
			return true
		}
	}
	return false
}

func probeOnce(timeout time.Duration) bool {
	addr := "/psub/live/probe/" + gonbui.UniqueID()
	ch := comms.Listen[int](addr)
	defer ch.Close()
	dom.TransientJavascript(fmt.Sprintf(`(() => { const c = globalThis.gonb_comm; if (c) c.send(%q, 1); })();`, addr))
	select {
	case <-ch.C:
		return true
	case <-time.After(timeout):
		return false
	}
}

// liveDuration writes whole minutes and seconds in words ("10 minutes"),
// anything else as Go does.
func liveDuration(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "a minute"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	case d%time.Second == 0 && d < time.Minute:
		return fmt.Sprintf("%d s", d/time.Second)
	}
	return d.String()
}

// liveSummary is a frame's metrics on one line.
func liveSummary(f LiveFrame) string {
	var parts []string
	for _, m := range f.Metrics {
		parts = append(parts, m.Name+" "+m.text())
	}
	return strings.Join(parts, ", ")
}
