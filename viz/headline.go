package viz

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"
)

// A notebook's outputs carry markers for scripts/site, which builds the
// index of the rendered site from the executed notebooks: an HTML comment
// "<!-- psub:KIND {json} -->" beside what the reader sees. Comments stay
// invisible in Jupyter and in the rendered page, survive nbconvert, and
// json.Marshal escapes '<' and '>', so no value can end the comment early.
const markerOpen, markerClose = "<!-- psub:", " -->"

// Marker is what a notebook states for the site's index.
type Marker struct {
	Kind string `json:"-"` // "headline" or "header"

	Text string `json:"text,omitempty"` // headline: the paper-vs-ours line

	Title   string `json:"title,omitempty"`   // header: notebook title
	Data    string `json:"data,omitempty"`    // header: the data it ran on
	Profile string `json:"profile,omitempty"` // header: quick or full
}

func (m Marker) comment() string {
	b, _ := json.Marshal(m) // a struct of strings always marshals
	return markerOpen + m.Kind + " " + string(b) + markerClose
}

// HeadlinePrefix starts the visible headline line.
const HeadlinePrefix = "Paper vs ours: "

// HeadlineHTML renders the headline as one visible line with its marker.
func HeadlineHTML(text string) string {
	return `<p class="psub-headline" style="font-size:1.1em"><b>` + html.EscapeString(strings.TrimSpace(HeadlinePrefix)) +
		"</b> " + html.EscapeString(text) + "</p>" + Marker{Kind: "headline", Text: text}.comment()
}

// Headline displays the notebook's result in one line beside the paper's
// ("Paper vs ours: …"), built by the notebook from the values it computed,
// and marks it for the index of the rendered site (scripts/site). Outside a
// notebook it prints the line.
func Headline(text string) {
	if !InNotebook() {
		fmt.Println(HeadlinePrefix + text)
		return
	}
	gonbui.SendData(&protocol.DisplayData{Data: map[protocol.MIMEType]any{
		protocol.MIMETextHTML:  HeadlineHTML(text),
		protocol.MIMETextPlain: HeadlinePrefix + text,
	}})
	flush()
}

// HeaderMarker returns the invisible marker of a notebook header (title,
// data and h.Run's profile) for Header to append to its markdown, so that
// scripts/site need not parse the header's table.
func HeaderMarker(h HeaderInfo) string {
	return "\n" + Marker{Kind: "header", Title: h.Title, Data: h.Data, Profile: h.Run.Profile}.comment() + "\n"
}

// ParseMarkers returns the markers found in a notebook output's text, in
// order. Malformed markers are skipped and reported in the error; the
// markers that parsed are returned with it.
func ParseMarkers(s string) ([]Marker, error) {
	var ms []Marker
	var bad []string
	for {
		i := strings.Index(s, markerOpen)
		if i < 0 {
			break
		}
		s = s[i+len(markerOpen):]
		j := strings.Index(s, markerClose)
		if j < 0 {
			bad = append(bad, "unterminated marker "+clip(s, 40))
			break
		}
		body := s[:j]
		s = s[j+len(markerClose):]
		kind, js, _ := strings.Cut(body, " ")
		m := Marker{}
		if err := json.Unmarshal([]byte(js), &m); err != nil || kind == "" {
			bad = append(bad, fmt.Sprintf("marker %q: %v", clip(body, 40), err))
			continue
		}
		m.Kind = kind
		ms = append(ms, m)
	}
	if len(bad) > 0 {
		return ms, fmt.Errorf("bad psub markers: %s", strings.Join(bad, "; "))
	}
	return ms, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
