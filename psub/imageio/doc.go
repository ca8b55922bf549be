// Package imageio reads and writes the rasters the segmentation experiments
// use: 2-D images (PNG, JPEG, BMP), greyscale volumes (stacks of slices or
// multi-page TIFF, 8 or 16 bits) and binary or label masks, as Volume and
// LabelMap values. Errors name the file and what was wrong with it.
package imageio
