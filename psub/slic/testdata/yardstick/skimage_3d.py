# scikit-image yardstick for BenchmarkSegment3D: the 512x384x82 corner crop of
# the EPFL training volume, n_segments=16000, compactness=20, sigma=5.
# usage: /usr/bin/python3 skimage_3d.py [REPEATS]
import sys, time, numpy as np
from PIL import Image
from skimage.segmentation import slic
d, h, w = 82, 384, 512
vol = np.stack([np.array(Image.open("/work/shared/data/epfl_mito/training/images/train_%03d.png" % (z + 1)))[:h, :w] for z in range(d)])
print(vol.shape, vol.dtype, flush=True)
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 1
for _ in range(reps):
    t, c = time.perf_counter(), time.process_time()
    lab = slic(vol, n_segments=16000, compactness=20, sigma=5, start_label=0, channel_axis=None)
    print("segments", lab.max() + 1, "wall %.2f s cpu %.2f s" % (time.perf_counter() - t, time.process_time() - c), flush=True)
