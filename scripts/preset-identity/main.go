// Command dump builds the cows (all), horses (the retina protocol's draw of
// 50, seed 1) and a mitochondria crop (data.MitoQuickCrop, both volumes) with
// the data package of the tree it is run in and prints one line per instance:
// name, nodes, edges and the sha256 of the exact float64 bits of its unary and
// pairwise features, its edges, its labels, its region map and its pixel
// truth, then the set's description. Two trees that print the same lines
// built the same problems bit for bit. scripts/preset-identity runs it.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/probably-submodular/crf/data"
)

func main() {
	check := func(s *data.SegmentedSet, err error) *data.SegmentedSet {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return s
	}
	sets := []*data.SegmentedSet{
		check(data.BuildCows(data.ImageSetOptions{})),
		check(data.BuildHorsesSample(data.ImageSetOptions{}, 50, 1)),
		check(data.BuildMito(data.MitoOptions{Crop: data.MitoQuickCrop()})),
		check(data.BuildMito(data.MitoOptions{Crop: data.MitoQuickCrop(), Volume: "testing"})),
	}
	for _, s := range sets {
		fmt.Printf("set %s reduced=%v items=%d\n", s.Name, s.Reduced, len(s.Items))
		for _, it := range s.Items {
			in := it.Instance
			h := sha256.New()
			f := func(x float64) { binary.Write(h, binary.LittleEndian, math.Float64bits(x)) }
			i := func(x int) { binary.Write(h, binary.LittleEndian, int64(x)) }
			rows := func(tag string, rs [][]float64) {
				h.Write([]byte(tag))
				for _, r := range rs {
					i(len(r))
					for _, x := range r {
						f(x)
					}
				}
			}
			rows("unary", in.Unary)
			h.Write([]byte("edges"))
			for _, e := range in.Edges {
				i(e[0])
				i(e[1])
			}
			rows("pairwise", in.Pairwise)
			h.Write([]byte("labels"))
			for _, y := range in.Labels {
				i(y)
			}
			h.Write([]byte("regions"))
			for _, r := range it.Regions.Labels {
				i(int(r))
			}
			h.Write([]byte("truth"))
			for _, r := range it.Truth.Labels {
				i(int(r))
			}
			fmt.Printf("%s nodes=%d edges=%d oracle=%v sha256=%x\n", in.Name, in.Nodes(), len(in.Edges), it.Oracle.Counts, h.Sum(nil))
		}
		fmt.Printf("description %s\n", s.Description)
	}
}
