// Package imageio reads and writes the rasters the segmentation experiments
// use: 2-D images (PNG, JPEG, BMP), greyscale volumes (stacks of slices or
// multi-page TIFF, 8 or 16 bits) and binary or label masks, as Volume and
// LabelMap values. Errors name the file and what was wrong with it.
//
// # Values
//
// Samples are float32 in the range of the source: 0–255 for 8-bit images,
// 0–65535 for 16-bit PNG and TIFF (nothing is rescaled; descriptors must be
// told the range). Grey sources give Channels 1, everything else Channels 3
// (R, G, B; alpha is dropped).
//
// # Reading
//
//   - ReadImage sniffs the format from the file's first bytes: PNG, JPEG,
//     BMP give Depth 1; TIFF gives one slice per page. Decode checks the
//     size a PNG, JPEG or BMP header declares against what the file can
//     hold and against the memory budget (internal/membudget,
//     PSUB_MAX_MEMORY) before any pixel is allocated.
//   - ReadStack puts 2-D slices of equal size into a volume
//     (z = position in the list).
//   - DecodeTIFF / ReadTIFF is this package's own multi-page TIFF reader
//     (golang.org/x/image/tiff reads only the first page): greyscale 1/8/16
//     bits, both byte orders, strips uncompressed or LZW/Deflate/PackBits,
//     predictor 2. Allocation is bounded by the file size and
//     TIFFOptions.MaxSamples or the memory budget, so a corrupt header cannot exhaust memory; it
//     is fuzzed (FuzzDecodeTIFF). EncodeTIFF / WriteTIFF write uncompressed
//     8- or 16-bit stacks in either byte order; EncodeTIFFSamples /
//     WriteTIFFSamples the same bytes from a function of the voxel (a mask
//     from its label map, without a float32 copy of the volume).
//
// # Masks
//
// ReadMask thresholds a grey (or luma of a colour) image into a LabelMap of
// 0/1: 1 where the value is >= threshold. The data sets need
// ThresholdNonZero (cows: 1-bit PNG decoded as 0/255; EM derived masks
// 0/255) and ThresholdHalf (Weizmann horses: JPEG masks, Y >= 128).
// ReadImageMask reads a pair and reports a size mismatch naming both files.
// WriteLabelPNG stores superpixel maps as 16-bit grey PNG (ReadImage reads
// them back, one sample a label).
package imageio
