# Agreement of two label maps: for each region of A, the share of its pixels in
# its best-matching region of B ("purity"), summed over A; 1 = A refines B.
# usage: /usr/bin/python3 compare.py GO_LABELS.png SKIMAGE_LABELS.npy
import sys, numpy as np
from PIL import Image
a = np.array(Image.open(sys.argv[1])).astype(np.int64)
b = np.load(sys.argv[2]).astype(np.int64)
def purity(a, b):
    # fraction of pixels in the majority b-label of their a-label
    pairs = a.ravel() * (b.max() + 1) + b.ravel()
    u, c = np.unique(pairs, return_counts=True)
    best = {}
    for p, cnt in zip(u, c):
        k = p // (b.max() + 1); best[k] = max(best.get(k, 0), cnt)
    return sum(best.values()) / a.size
print("go segs", a.max()+1, "sk segs", b.max()+1, "purity go->sk %.3f sk->go %.3f" % (purity(a, b), purity(b, a)))
