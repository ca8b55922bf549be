# scikit-image yardstick for BenchmarkSegment2D: min wall and CPU time of slic.
# usage: /usr/bin/python3 skimage_2d.py IMAGE N COMPACTNESS SIGMA [REPEATS [LABELS.npy]]
import sys, time, numpy as np
from skimage.io import imread
from skimage.segmentation import slic
img = imread(sys.argv[1])
n, m, s = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
reps = int(sys.argv[5]) if len(sys.argv) > 5 else 3
ca = -1 if img.ndim == 3 else None
if img.ndim == 3: img = img[..., :3]
wall, cpu = [], []
for _ in range(reps):
    t, c = time.perf_counter(), time.process_time()
    lab = slic(img, n_segments=n, compactness=m, sigma=s, start_label=0, channel_axis=ca)
    wall.append(time.perf_counter() - t); cpu.append(time.process_time() - c)
print(img.shape, "segments", lab.max() + 1, "wall min %.4f s, cpu min %.4f s, walls %s, cpus %s" % (min(wall), min(cpu), ["%.3f" % w for w in wall], ["%.4f" % c for c in cpu]))
if len(sys.argv) > 6: np.save(sys.argv[6], lab)
