#!/usr/bin/env python3
"""Small detection cases whose answer hinges on ties and layouts (tests/unit/test_detection_ties.py):
multiclass_nms3 on a two-stage head's [R, C, 4] boxes and [R, C] scores with rois_num,
collect_fpn_proposals and generate_proposals on tied scores, argsort (stable=False) on ties.
Run with a Paddle venv's python from the repo root:

    /tmp/pd331/bin/python tools/paddle_oracle/gen_detection_ties.py tests/fixtures/detection_ties/cases.3.3.1.npz
"""
import sys

import numpy as np
import paddle
from paddle.vision import ops

r = np.random.default_rng(7)
out = {}
# multiclass_nms3, LoD form: 7 rois over 3 images (one empty), 3 classes, class 0 background
boxes = np.concatenate([r.uniform(0, 20, [7, 3, 2]), r.uniform(20, 40, [7, 3, 2])], -1).astype("float32")
boxes[3] = boxes[2]  # a duplicate roi
scores = r.uniform(0, 1, [7, 3]).astype("float32")
scores[3] = scores[2]
num = np.array([4, 0, 3], "int32")
res = paddle._C_ops.multiclass_nms3(paddle.to_tensor(boxes), paddle.to_tensor(scores), paddle.to_tensor(num),
                                    0.1, -1, 5, 0.3, False, 1.0, 0)
out.update(mc_boxes=boxes, mc_scores=scores, mc_num=num, mc_out=res[0].numpy(), mc_index=res[1].numpy(),
           mc_count=res[2].numpy())
# collect_fpn_proposals: two levels, two images, scores tied across levels and images
rois = [r.uniform(0, 30, [5, 4]).astype("float32"), r.uniform(0, 30, [4, 4]).astype("float32")]
sc = [np.array([[.5], [.7], [.5], [.5], [.9]], "float32"), np.array([[.5], [.7], [.5], [.2]], "float32")]
nums = [np.array([3, 2], "int32"), np.array([1, 3], "int32")]
res = paddle._C_ops.collect_fpn_proposals([paddle.to_tensor(a) for a in rois], [paddle.to_tensor(a) for a in sc],
                                          [paddle.to_tensor(a) for a in nums], 7)
out.update(cf_rois0=rois[0], cf_rois1=rois[1], cf_s0=sc[0], cf_s1=sc[1], cf_n0=nums[0], cf_n1=nums[1],
           cf_out=res[0].numpy(), cf_count=res[1].numpy())
# generate_proposals: a 4x4 map, 3 anchors, scores tied in blocks (a uniform image's RPN)
s = np.repeat(np.array([0.3, 0.6, 0.6], "float32"), 16).reshape(1, 3, 4, 4)
d = np.zeros([1, 12, 4, 4], "float32")
ys, xs = np.meshgrid(np.arange(4) * 8.0, np.arange(4) * 8.0, indexing="ij")
anchors = np.stack([np.stack([xs, ys, xs + w, ys + w], -1) for w in (8.0, 12.0, 16.0)], 2).reshape(-1, 4).astype("float32")
im = np.array([[32, 32]], "float32")
res = ops.generate_proposals(paddle.to_tensor(s), paddle.to_tensor(d), paddle.to_tensor(im), paddle.to_tensor(anchors),
                             paddle.ones([48, 4]), pre_nms_top_n=20, post_nms_top_n=10, nms_thresh=0.5,
                             min_size=0.0, pixel_offset=False, return_rois_num=True)
out.update(gp_scores=s, gp_deltas=d, gp_im=im, gp_anchors=anchors, gp_rois=res[0].numpy(), gp_probs=res[1].numpy(),
           gp_num=res[2].numpy())
# argsort, stable=False, descending, on ties and NaNs
x = np.array([[.5, .5, 1, .5, np.nan, 1, .5, .2, .5, .5, 1, np.nan, .5, .5, .5, .5, .5, 1, .5, .5]], "float32")
out.update(as_x=x, as_index=paddle.argsort(paddle.to_tensor(x), descending=True).numpy())
np.savez(sys.argv[1], **out)
print({k: v.shape for k, v in out.items()})
