package viz

import (
	"strings"
	"testing"

	"github.com/probably-submodular/crf/internal/runenv"
)

func TestHeadlineHTMLRoundTrip(t *testing.T) {
	// Text that could break HTML or end the comment early.
	text := `C4 94.0 % vs 93.9 %; p < 1e-5 --> "quoted" & <b>not bold</b>, Δ +0.1`
	h := HeadlineHTML(text)
	visible, comment, ok := strings.Cut(h, "<!--")
	if !ok {
		t.Fatalf("no marker in %q", h)
	}
	if !strings.Contains(visible, "Paper vs ours:") || !strings.Contains(visible, "p &lt; 1e-5 --&gt; &#34;quoted&#34; &amp; &lt;b&gt;") {
		t.Fatalf("visible line not escaped as expected: %q", visible)
	}
	// The comment must end exactly once, at the very end.
	if strings.Count(comment, "-->") != 1 || !strings.HasSuffix(comment, "-->") {
		t.Fatalf("text ends the comment early: %q", comment)
	}
	ms, err := ParseMarkers("<div>before</div>" + h + "<p>after</p>")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Kind != "headline" || ms[0].Text != text {
		t.Fatalf("markers = %+v, want one headline with the text", ms)
	}
}

func TestParseMarkersHandWritten(t *testing.T) {
	s := "## T\n\n| data | x |\n<!-- psub:header {\"title\":\"01 · Cows\",\"data\":\"cows \\u003c 20\",\"profile\":\"full\"} -->\n" +
		"<!-- an ordinary comment -->" +
		`<p>x</p><!-- psub:headline {"text":"C4 > C1"} -->`
	ms, err := ParseMarkers(s)
	if err != nil {
		t.Fatal(err)
	}
	want := []Marker{
		{Kind: "header", Title: "01 · Cows", Data: "cows < 20", Profile: "full"},
		{Kind: "headline", Text: "C4 > C1"},
	}
	if len(ms) != len(want) {
		t.Fatalf("got %+v, want %+v", ms, want)
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("marker %d = %+v, want %+v", i, ms[i], want[i])
		}
	}
}

func TestParseMarkersMalformed(t *testing.T) {
	ms, err := ParseMarkers(`<!-- psub:headline {"text": -->` + `<!-- psub:headline {"text":"ok"} -->` + `<!-- psub:headline {"text":"open"`)
	if err == nil || !strings.Contains(err.Error(), "unterminated") {
		t.Fatalf("want an error naming the bad and the unterminated marker, got %v", err)
	}
	if len(ms) != 1 || ms[0].Text != "ok" {
		t.Fatalf("the good marker should still parse: %+v", ms)
	}
	if ms, err := ParseMarkers("no markers here"); err != nil || len(ms) != 0 {
		t.Fatalf("plain text: %+v, %v", ms, err)
	}
}

func TestHeaderMarker(t *testing.T) {
	run := runenv.Run{Profile: "full"}
	ms, err := ParseMarkers(HeaderMarkdown(HeaderInfo{Title: "x", Run: run}) + HeaderMarker(HeaderInfo{Title: "07 · Trade-off", Data: "synthetic | seed 1", Run: run}))
	if err != nil {
		t.Fatal(err)
	}
	want := Marker{Kind: "header", Title: "07 · Trade-off", Data: "synthetic | seed 1", Profile: "full"}
	if len(ms) != 1 || ms[0] != want {
		t.Fatalf("got %+v, want %+v", ms, want)
	}
}
