package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/probably-submodular/crf/internal/safefile"
)

// FindChromium returns the browser to drive: $PSUB_CHROMIUM, else chromium
// or chromium-browser on PATH, else /usr/bin/chromium. When none is found it
// returns the places it looked, for the skip message.
func FindChromium() (path string, tried []string) {
	var cands []string
	if p := os.Getenv("PSUB_CHROMIUM"); p != "" {
		cands = append(cands, p)
	}
	cands = append(cands, "chromium", "chromium-browser", "/usr/bin/chromium")
	for _, c := range cands {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
		if c == os.Getenv("PSUB_CHROMIUM") {
			c += " ($PSUB_CHROMIUM)"
		} else if !strings.Contains(c, "/") {
			c += " (on PATH)"
		}
		tried = append(tried, c)
	}
	return "", tried
}

// Options says how to start the browser.
type Options struct {
	// BlockNetwork makes every host name and address but 127.0.0.1 fail to
	// resolve: a page that needs the network shows it by failing.
	BlockNetwork bool
	// Width and Height of the window (default 1280×900).
	Width, Height int
}

// Browser is one headless Chromium process.
type Browser struct {
	ctx         context.Context // the first tab's context; new tabs derive from it
	cancel      context.CancelFunc
	allocCancel context.CancelFunc
	width       int
	height      int
}

// Start launches the browser at exe, headless, without the sandbox when
// running as root (Chromium refuses to start as root otherwise).
func Start(exe string, o Options) (*Browser, error) {
	if o.Width == 0 {
		o.Width = 1280
	}
	if o.Height == 0 {
		o.Height = 900
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.WindowSize(o.Width, o.Height),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	if o.BlockNetwork {
		// IP literals go through the rules too: keep the loopback address.
		opts = append(opts, chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"))
	}
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	// The first Run starts the browser; it must not carry a timeout, which
	// would end the browser with it.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		acancel()
		return nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	return &Browser{ctx: ctx, cancel: cancel, allocCancel: acancel, width: o.Width, height: o.Height}, nil
}

// Close ends the browser and waits for its process to exit.
func (b *Browser) Close() {
	b.cancel()
	b.allocCancel()
}

// Problem is something that went wrong in a page: a resource that failed to
// load, an HTTP error status, an uncaught exception, or an error written to
// the console or the browser log.
type Problem struct {
	Kind string // "load failed", "http status", "exception", "console error", "log error"
	Text string
	URL  string
}

func (p Problem) String() string {
	if p.URL == "" {
		return p.Kind + ": " + p.Text
	}
	return p.Kind + ": " + p.Text + " (" + p.URL + ")"
}

// Page is one tab. It records problems from the moment it is opened.
type Page struct {
	ctx    context.Context
	cancel context.CancelFunc
	b      *Browser

	mu       sync.Mutex
	problems []Problem
	urls     map[network.RequestID]string
}

// NewPage opens a new tab and starts recording its problems.
func (b *Browser) NewPage() (*Page, error) {
	ctx, cancel := chromedp.NewContext(b.ctx)
	p := &Page{ctx: ctx, cancel: cancel, b: b, urls: map[network.RequestID]string{}}
	if err := chromedp.Listen(ctx, p.record); err != nil {
		cancel()
		return nil, fmt.Errorf("opening a tab: %w", err)
	}
	return p, nil
}

// Close closes the tab.
func (p *Page) Close() { p.cancel() }

// record runs on chromedp's reading goroutine: it must be quick and must not
// call the browser.
func (p *Page) record(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	add := func(kind, text, url string) {
		p.problems = append(p.problems, Problem{Kind: kind, Text: text, URL: url})
	}
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		if e.Request != nil {
			p.urls[e.RequestID] = e.Request.URL
		}
	case *network.EventLoadingFailed:
		// A canceled request was dropped by the page itself (it navigated
		// or removed the element): not a failure to load.
		if e.Canceled || faviconProbe(e.Type, p.urls[e.RequestID]) {
			return
		}
		text := e.ErrorText
		if e.BlockedReason != "" {
			text += " (blocked: " + string(e.BlockedReason) + ")"
		}
		add("load failed", string(e.Type)+": "+text, p.urls[e.RequestID])
	case *network.EventResponseReceived:
		if e.Response != nil && e.Response.Status >= 400 && !faviconProbe(e.Type, e.Response.URL) {
			add("http status", fmt.Sprintf("%s: %d %s", e.Type, e.Response.Status, e.Response.StatusText), e.Response.URL)
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text += " " + d.Exception.Description
		}
		add("exception", text, d.URL)
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var parts []string
			for _, a := range e.Args {
				switch {
				case len(a.Value) > 0:
					parts = append(parts, strings.Trim(string(a.Value), `"`))
				case a.Description != "":
					parts = append(parts, a.Description)
				}
			}
			add("console error", strings.Join(parts, " "), "")
		}
	case *log.EventEntryAdded:
		if e.Entry == nil || e.Entry.Level != log.EntryLevelError {
			return
		}
		// The network's log entries repeat a failure already recorded.
		if e.Entry.Source == log.EntrySourceNetwork {
			if faviconProbe(network.ResourceTypeOther, e.Entry.URL) {
				return
			}
			for _, q := range p.problems {
				if q.URL == e.Entry.URL {
					return
				}
			}
		}
		add("log error", string(e.Entry.Source)+": "+e.Entry.Text, e.Entry.URL)
	}
}

// faviconProbe reports whether a request is the browser's own look for
// /favicon.ico, which it makes for every page whether or not the page
// names an icon (a page's <link rel="icon"> is of type Other too, but never
// at that exact path unless the site put one there).
func faviconProbe(typ network.ResourceType, u string) bool {
	pu, err := url.Parse(u)
	return err == nil && typ == network.ResourceTypeOther && pu.Path == "/favicon.ico"
}

// Problems returns what went wrong so far.
func (p *Page) Problems() []Problem {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Problem(nil), p.problems...)
}

// Navigate loads url and waits for its load event.
func (p *Page) Navigate(url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	return chromedp.Do(ctx, chromedp.Navigate(url))
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise)
// and decodes its JSON value into T.
func Eval[T any](p *Page, js string, timeout time.Duration) (T, error) {
	ctx, cancel := context.WithTimeout(p.ctx, timeout)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// WaitFor polls the JavaScript boolean expression cond every poll until it
// is true, and returns an error naming what if the timeout passes first.
func (p *Page) WaitFor(what, cond string, timeout, poll time.Duration) error {
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		ok, err := Eval[bool](p, "Boolean("+cond+")", 30*time.Second)
		if err == nil && ok {
			return nil
		}
		lastErr = err
		if time.Now().After(deadline) {
			if lastErr != nil {
				return fmt.Errorf("waited %v for %s: %w", timeout, what, lastErr)
			}
			return fmt.Errorf("waited %v for %s", timeout, what)
		}
		select {
		case <-time.After(poll):
		case <-p.ctx.Done():
			return p.ctx.Err()
		}
	}
}

// maxShot is the tallest piece of page put in one PNG: taller pages are cut
// into several files, since very tall captures fail or come out blank.
const maxShot = 8000

// Screenshot saves the whole page as PNG at path, and returns the files
// written: path itself, or path-1.png, path-2.png, … when the page is taller
// than maxShot CSS pixels. scrollEl, when not empty, is a CSS selector of
// the element that scrolls instead of the document (Jupyter's #site): the
// viewport is made tall enough to show all of it first, and restored after.
func (p *Page) Screenshot(path, scrollEl string) ([]string, error) {
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
	defer cancel()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	height := func() (float64, error) {
		return chromedp.Run(ctx, chromedp.Evaluate[float64](`Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0)`))
	}
	if scrollEl != "" {
		// Grow the viewport until the scrolling element no longer scrolls.
		extra, err := chromedp.Run(ctx, chromedp.Evaluate[float64](fmt.Sprintf(
			`(() => { const e = document.querySelector(%q); return e ? e.scrollHeight - e.clientHeight : 0; })()`, scrollEl)))
		if err != nil {
			return nil, err
		}
		if extra > 0 {
			_, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
				Width: int64(p.b.width), Height: int64(float64(p.b.height) + extra), DeviceScaleFactor: 1,
			})
			if err != nil {
				return nil, err
			}
			// Back to the window's size afterwards: the page lives on (the
			// live test goes on running cells after its first screenshot).
			defer func() {
				if _, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err == nil {
					chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event('resize'))`))
				}
			}()
			// Let the page lay itself out for the new size.
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.dispatchEvent(new Event('resize'))`), chromedp.Sleep(time.Second)); err != nil {
				return nil, err
			}
		}
	}
	h, err := height()
	if err != nil {
		return nil, err
	}
	var files []string
	n := int((h + maxShot - 1) / maxShot)
	if n < 1 {
		n = 1
	}
	for i := 0; i < n; i++ {
		y := float64(i * maxShot)
		ph := min(float64(maxShot), h-y)
		r, err := cdp.Call(ctx, chromedp.FromContext(ctx).Target, page.CaptureScreenshot, page.CaptureScreenshotParams{
			Format:                page.CaptureScreenshotFormatPng,
			Clip:                  &page.Viewport{X: 0, Y: y, Width: float64(p.b.width), Height: ph, Scale: 1},
			CaptureBeyondViewport: ptr(true),
			FromSurface:           ptr(true),
		})
		if err != nil {
			return files, fmt.Errorf("screenshot %s: %w", path, err)
		}
		name := path
		if n > 1 {
			name = fmt.Sprintf("%s-%d.png", strings.TrimSuffix(path, ".png"), i+1)
		}
		if err := safefile.WriteBytes(name, r.Data); err != nil {
			return files, err
		}
		files = append(files, name)
	}
	return files, nil
}

func ptr[T any](v T) *T { return &v }

// decodeDataURL decodes a "data:image/png;base64,..." URL, as a canvas's
// toDataURL returns it.
func decodeDataURL(u string) (image.Image, error) {
	const prefix = "data:image/png;base64,"
	if !strings.HasPrefix(u, prefix) {
		return nil, fmt.Errorf("not a PNG data URL: %.40q", u)
	}
	b, err := base64.StdEncoding.DecodeString(u[len(prefix):])
	if err != nil {
		return nil, err
	}
	return png.Decode(bytes.NewReader(b))
}
