package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/probably-submodular/crf/internal/safefile"
	"github.com/probably-submodular/crf/viz"
)

// Saved notebooks once carried the whole echarts library in an HTML output
// of their header cell, wrapped as below; SlimNotebook replaces that output
// by viz.EchartsLoader, the script tag that loads the library from
// assets/echarts.min.js beside the notebook.
const (
	inlinedHead = "<script>(function(define, module, exports){\n"
	inlinedTail = "\n}).call(window, undefined, undefined, undefined);</script>"
)

// SlimNotebook returns the notebook b with every inlined echarts library in
// its outputs replaced by the loader, and how many it replaced. It edits
// the JSON text in place, so every other byte stays as it was (nbformat's
// layout, the order of keys, the other outputs): the output's "text/html"
// list of lines becomes a list of one line, indented as the list was (on
// one line when the file is not indented). A
// list that starts like the inlined library but is not one is an error,
// not a guess.
func SlimNotebook(b []byte) ([]byte, int, error) {
	head := jsonString(inlinedHead) // the first line as nbformat writes it
	var out bytes.Buffer
	n, rest := 0, b
	for {
		i := bytes.Index(rest, head)
		if i < 0 {
			out.Write(rest)
			return out.Bytes(), n, nil
		}
		// The list holding that line: '[' before it (only white space
		// between), the matching ']' found by decoding from '['.
		open := bytes.LastIndexByte(rest[:i], '[')
		if open < 0 || len(bytes.TrimSpace(rest[open+1:i])) != 0 {
			return nil, n, fmt.Errorf("byte %d: the inlined echarts library is not the first line of an output's list", len(b)-len(rest)+i)
		}
		dec := json.NewDecoder(bytes.NewReader(rest[open:]))
		var lines []string
		if err := dec.Decode(&lines); err != nil {
			return nil, n, fmt.Errorf("byte %d: the output holding the echarts library: %w", len(b)-len(rest)+open, err)
		}
		end := open + int(dec.InputOffset()) // just past ']'
		text := strings.Join(lines, "")
		if !strings.HasPrefix(text, inlinedHead) || !strings.HasSuffix(text, inlinedTail) || !strings.Contains(text, "echarts") {
			return nil, n, fmt.Errorf("byte %d: an output starts like the inlined echarts library but does not end like it (%d lines); left alone, nothing written", len(b)-len(rest)+open, len(lines))
		}
		indent := rest[lastNewline(rest[:i])+1 : i]
		closeIndent := rest[lastNewline(rest[:end-1])+1 : end-1]
		out.Write(rest[:open])
		out.WriteString("[")
		blank := len(bytes.TrimSpace(indent)) == 0 && len(bytes.TrimSpace(closeIndent)) == 0
		if blank {
			out.WriteString("\n")
			out.Write(indent)
		}
		out.Write(jsonString(viz.EchartsLoader()))
		if blank {
			out.WriteString("\n")
			out.Write(closeIndent)
		}
		out.WriteString("]")
		rest = rest[end:]
		n++
	}
}

// jsonString is s as a JSON string the way nbformat writes it: '<', '>' and
// '&' as they are, not escaped as Go's json.Marshal does.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// lastNewline is the index of the last '\n' of b, -1 when there is none.
func lastNewline(b []byte) int { return bytes.LastIndexByte(b, '\n') }

// slimNotebooks runs SlimNotebook over the notebooks, rewriting atomically
// those that change, and prints their sizes before and after. A notebook
// that fails is named and left as it was; the others are still done.
func slimNotebooks(stdout io.Writer, paths []string) error {
	var before, after int64
	var failed []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		slim, n, err := SlimNotebook(b)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", p, err))
			continue
		}
		if n > 0 {
			if err := safefile.WriteBytes(p, slim); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", p, err))
				continue
			}
		}
		before, after = before+int64(len(b)), after+int64(len(slim))
		fmt.Fprintf(stdout, "%s: %d -> %d bytes (%d inlined echarts replaced)\n", p, len(b), len(slim), n)
	}
	fmt.Fprintf(stdout, "slim: %d notebooks, %d -> %d bytes\n", len(paths)-len(failed), before, after)
	if len(failed) > 0 {
		return fmt.Errorf("slim: %d notebooks left as they were:\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return nil
}
