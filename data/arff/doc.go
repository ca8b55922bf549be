// Package arff reads ARFF files (Weka's Attribute-Relation File Format) and
// the multi-label conventions of MULAN and MEKA, the formats of the paper's
// yeast and scene data (notebooks/TARGETS.md §5).
//
// Parse (or Read, for a file) accepts '%' comments, case-insensitive
// @relation, @attribute and @data, names and nominal values in single or
// double quotes, dense rows and sparse rows ({index value, ...}, omitted
// entries 0). It supports the two attribute kinds multi-label data uses,
// numeric and nominal, and rejects others with an error naming the line.
// Rows come back dense: numbers as written, a nominal value as its index in
// the attribute's values, '?' as NaN.
//
// File.MultiLabel splits the attributes into numeric features and 0/1
// labels. Which attributes are labels, a LabelSpec says: the first or last
// N, or their names. MEKA headers carry the count themselves ("-C N" in the
// @relation, as scene's "@relation 'scene: -C -6'", read by MEKALabels);
// MULAN headers (yeast's "MultiLabelData") do not, so the spec must give it,
// or the names that MULAN's XML labels file lists.
//
//	f, err := arff.Read("yeast-train.arff")
//	m, err := f.MultiLabel(arff.LabelSpec{Last: 14}) // m.X: 1500 × 103, m.Y: 1500 × 14
//
// Package data's loaders (LoadYeast, LoadScene) use it and check the
// counts the data sets' READMEs give.
package arff
