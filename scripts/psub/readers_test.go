package main

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCraftedSizesRefused: the commands refuse files whose headers declare
// sizes that cannot be real before allocating them (exit 1, the file and
// what was asked named).
func TestCraftedSizesRefused(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	p := b.Bytes()
	binary.BigEndian.PutUint32(p[16:], 100000)
	binary.BigEndian.PutUint32(p[20:], 100000)
	binary.BigEndian.PutUint32(p[29:], crc32.ChecksumIEEE(p[12:29]))
	files := map[string]string{
		"big.png":  string(p),
		"big.max":  "p max 2147483646 1\nn 1 s\nn 2 t\na 1 2 1\n",
		"cap.max":  "p max 2 1\nn 1 s\nn 2 t\na 1 2 9007199254740993\n",
		"m62.json": `{"version":1,"labels":4611686018427387904,"unary_dim":1,"pairwise_dim":1,"tied":false,"w":[],"set":"C4","c":1,"loss":"hamming"}`,
		"d.jsonl":  `{"unary":[[1],[2]],"edges":[[0,1]],"pairwise":[[1]],"labels":[0,100000]}` + "\n",
	}
	for name, s := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644)
	}
	in := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"slic", in("big.png"), "-o", in("out.png")}, "100000x100000 pixels, more than a file of 71 bytes can hold"},
		{[]string{"maxflow", in("big.max")}, "line 1: the p line declares 2147483646 nodes"},
		{[]string{"maxflow", in("cap.max")}, "line 4: arc 1->2: integer capacity 9007199254740993 exceeds 2^53"},
		{[]string{"predict", "-model", in("m62.json"), "-data", in("d.jsonl")}, "weight vector's length overflows"},
		{[]string{"train", "-train", in("d.jsonl")}, "d.jsonl:1: instance 0: node 1: label 100000 makes L = 100001 labels"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("psub %q: exit %d, %s; want exit 1 and %q", c.args[0], code, errb.String(), c.want)
		}
	}
}
