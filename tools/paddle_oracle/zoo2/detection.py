"""Detection and OCR heads written around paddle.vision.ops and Paddle's detection ops, on
backbones of a few convolutions, as PaddleDetection / PaddleOCR export them.

Each model's `cases` hold other batch and image sizes and inputs chosen so that its
post-processing meets its edge cases: NMS keeping nothing, one box, many boxes, and boxes
that are identical (a uniform image gives every interior cell the same logits: the decoded
boxes, clipped to the image, coincide and their scores tie exactly)."""
from __future__ import annotations

import numpy as np
import paddle
from paddle import nn
from paddle.vision import ops

from zoo.common import Model, image, rng

F = nn.functional


def _conv(cin, cout, k=3, stride=1, act=True):
    layers = [nn.Conv2D(cin, cout, k, stride, k // 2, bias_attr=False), nn.BatchNorm2D(cout)]
    if act:
        layers.append(nn.LeakyReLU(0.1))
    return nn.Sequential(*layers)


def _uniform(shape, value):
    return np.full(shape, value, np.float32)


def _spot(shape, background, value, y, x, size):
    """A uniform image with one bright square: one object for the detector."""
    a = np.full(shape, background, np.float32)
    a[:, :, y:y + size, x:x + size] = value
    return a


def _multiclass_nms3(bboxes, scores, rois_num=None, score_threshold=0.05, nms_top_k=100,
                     keep_top_k=20, nms_threshold=0.45, normalized=False, nms_eta=1.0,
                     background_label=-1):
    """ppdet.modeling.ops.multiclass_nms as PaddleDetection exports it (pir mode):
    _C_ops.multiclass_nms3, rows [label, score, x0, y0, x1, y1], index, count per image."""
    return paddle._C_ops.multiclass_nms3(bboxes, scores, rois_num, score_threshold, nms_top_k,
                                         keep_top_k, nms_threshold, normalized, nms_eta,
                                         background_label)


# -- YOLOv3: two scales, yolo_box, multiclass_nms3 ------------------------------------------


class YoloV3Head(nn.Layer):
    CLASSES = 4
    ANCHORS = ([10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119])

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2), _conv(16, 32, stride=2))
        self.down = _conv(32, 32, stride=2)
        out = 3 * (5 + self.CLASSES)
        self.head8 = nn.Conv2D(32, out, 1)
        self.head16 = nn.Conv2D(32, out, 1)

    def forward(self, x, im_size):
        c8 = self.stem(x)
        c16 = self.down(c8)
        boxes, scores = [], []
        for feat, head, anchors, ratio, sxy in ((c8, self.head8, self.ANCHORS[0], 8, 1.05),
                                                (c16, self.head16, self.ANCHORS[1], 16, 1.0)):
            b, s = ops.yolo_box(head(feat), im_size, anchors, self.CLASSES, conf_thresh=0.01,
                                downsample_ratio=ratio, clip_bbox=True, scale_x_y=sxy)
            boxes.append(b)
            scores.append(s)
        boxes = paddle.concat(boxes, 1)
        scores = paddle.concat(scores, 1).transpose([0, 2, 1])
        bbox, index, num = _multiclass_nms3(boxes, scores, score_threshold=0.3, nms_top_k=200,
                                            keep_top_k=30, nms_threshold=0.45)
        # PP-YOLO's post-processing on the same boxes: matrix NMS (identical clipped boxes give
        # its decay's 0 / 0)
        mbox, mindex, mnum = ops.matrix_nms(boxes, scores, 0.3, 0.25, 200, 30, use_gaussian=False,
                                            background_label=-1, normalized=False,
                                            return_index=True, return_rois_num=True)
        return bbox, index, num, mbox, mindex, mnum


def yolov3_head(name):
    x = image(name, [2, 3, 64, 64])
    im = np.array([[64, 64], [60, 48]], np.int32)
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x"),
             paddle.static.InputSpec([-1, 2], "int32", "im_size")]
    cases = {
        "b1_h96w64": {"x": image(name, [1, 3, 96, 64], "b1"), "im_size": np.array([[96, 64]], np.int32)},
        "b3_h32": {"x": image(name, [3, 3, 32, 32], "b3"), "im_size": np.array([[32, 32]] * 3, np.int32)},
        "none_kept": {"x": np.zeros([1, 3, 64, 64], np.float32), "im_size": np.array([[64, 64]], np.int32)},
        "one_box": {"x": _spot([1, 3, 64, 64], 0.0, 2.0, 24, 24, 4), "im_size": np.array([[64, 64]], np.int32)},
        "identical": {"x": _uniform([2, 3, 64, 64], -20.0), "im_size": np.array([[64, 64]] * 2, np.int32)},
    }
    return Model(YoloV3Head(), specs, {"x": x, "im_size": im},
                 {"nms": "_C_ops.multiclass_nms3 as ppdet.modeling.ops.multiclass_nms, background -1"},
                 cases)



# -- SSD: prior_box on two maps, box_coder decode_center_size, multiclass_nms3 ---------------


class SSDHead(nn.Layer):
    CLASSES = 3  # class 0 is the background
    PRIORS = 4  # aspect ratios 1, 2, 1/2 and the max size's square

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2), _conv(16, 32, stride=2))
        self.down = _conv(32, 32, stride=2)
        self.loc = nn.LayerList([nn.Conv2D(32, self.PRIORS * 4, 3, padding=1) for _ in range(2)])
        self.conf = nn.LayerList([nn.Conv2D(32, self.PRIORS * self.CLASSES, 3, padding=1) for _ in range(2)])

    def forward(self, x):
        c8 = self.stem(x)
        feats = [c8, self.down(c8)]
        locs, confs, priors, variances = [], [], [], []
        for feat, loc, conf, (lo, hi) in zip(feats, self.loc, self.conf, ((12.0, 24.0), (24.0, 48.0))):
            locs.append(loc(feat).transpose([0, 2, 3, 1]).reshape([0, -1, 4]))
            confs.append(conf(feat).transpose([0, 2, 3, 1]).reshape([0, -1, self.CLASSES]))
            box, var = ops.prior_box(feat, x, min_sizes=[lo], max_sizes=[hi], aspect_ratios=[2.0],
                                     variance=[0.1, 0.1, 0.2, 0.2], flip=True, clip=True)
            priors.append(box.reshape([-1, 4]))
            variances.append(var.reshape([-1, 4]))
        boxes = ops.box_coder(paddle.concat(priors), paddle.concat(variances), paddle.concat(locs, 1),
                              code_type="decode_center_size", box_normalized=True)
        scores = F.softmax(paddle.concat(confs, 1), -1).transpose([0, 2, 1])
        bbox, index, num = _multiclass_nms3(boxes, scores, score_threshold=0.4, nms_top_k=100,
                                            keep_top_k=20, nms_threshold=0.45, normalized=True,
                                            background_label=0)
        return bbox, index, num


def ssd_head(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x")]
    cases = {
        "b1_h96w64": {"x": image(name, [1, 3, 96, 64], "b1")},
        "b3_h32": {"x": image(name, [3, 3, 32, 32], "b3")},
        "none_kept": {"x": np.zeros([1, 3, 64, 64], np.float32)},
        "one_box": {"x": _spot([1, 3, 64, 64], 0.0, -1.0, 24, 24, 4)},
        "identical": {"x": _uniform([2, 3, 64, 64], -20.0)},
    }
    return Model(SSDHead(), specs, {"x": image(name, [2, 3, 64, 64])},
                 {"priors": "prior_box per map (depends on the map's and the image's shapes)"}, cases)


# -- Faster R-CNN with FPN: RPN per level, collect, distribute, roi_align per level ----------


class FasterRCNNHead(nn.Layer):
    CLASSES = 3  # + background
    STRIDES = (4, 8, 16, 32)
    SIZES = (16.0, 32.0, 64.0, 128.0)
    RATIOS = (0.5, 1.0, 2.0)

    def __init__(self):
        super().__init__()
        self.c2 = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2))
        self.c3 = _conv(16, 16, stride=2)
        self.c4 = _conv(16, 16, stride=2)
        self.c5 = _conv(16, 16, stride=2)
        self.lateral = nn.LayerList([nn.Conv2D(16, 16, 1) for _ in range(4)])
        self.rpn_conv = nn.Conv2D(16, 16, 3, padding=1)
        self.rpn_cls = nn.Conv2D(16, len(self.RATIOS), 1)
        self.rpn_box = nn.Conv2D(16, 4 * len(self.RATIOS), 1)
        self.fc6 = nn.Linear(16 * 4 * 4, 32)
        self.cls = nn.Linear(32, self.CLASSES + 1)
        self.box = nn.Linear(32, 4 * (self.CLASSES + 1))

    def _anchors(self, feat, stride, size):
        """ppdet AnchorGenerator: cell anchors shifted over the map's grid (its shape at run time)."""
        cell = []
        for r in self.RATIOS:
            w, h = size / np.sqrt(r), size * np.sqrt(r)
            cell.append([-w / 2, -h / 2, w / 2, h / 2])
        cell = paddle.to_tensor(np.array(cell, np.float32))
        shape = paddle.shape(feat)
        xs = paddle.arange(0, shape[3] * stride, stride, dtype="float32") + stride * 0.5
        ys = paddle.arange(0, shape[2] * stride, stride, dtype="float32") + stride * 0.5
        sy, sx = paddle.meshgrid(ys, xs)
        shifts = paddle.stack([sx.reshape([-1]), sy.reshape([-1]), sx.reshape([-1]), sy.reshape([-1])], 1)
        return (shifts.reshape([-1, 1, 4]) + cell.reshape([1, -1, 4])).reshape([-1, 4])

    def forward(self, x, im_shape):
        c2 = self.c2(x)
        c3 = self.c3(c2)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p5 = self.lateral[3](c5)
        p4 = self.lateral[2](c4) + F.interpolate(p5, scale_factor=2.0, mode="nearest")
        p3 = self.lateral[1](c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        p2 = self.lateral[0](c2) + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        feats = [p2, p3, p4, p5]
        rois, probs, nums = [], [], []
        for feat, stride, size in zip(feats, self.STRIDES, self.SIZES):
            t = F.relu(self.rpn_conv(feat))
            anchors = self._anchors(feat, stride, size)
            r, p, n = ops.generate_proposals(self.rpn_cls(t), self.rpn_box(t), im_shape, anchors,
                                             paddle.ones_like(anchors), pre_nms_top_n=60,
                                             post_nms_top_n=12, nms_thresh=0.7, min_size=0.0,
                                             pixel_offset=False, return_rois_num=True)
            rois.append(r)
            probs.append(p)
            nums.append(n)
        rois, rois_num = paddle._C_ops.collect_fpn_proposals(rois, probs, nums, 24)
        level_rois, restore, level_nums = ops.distribute_fpn_proposals(
            rois, 2, 5, 4, 32, pixel_offset=False, rois_num=rois_num)
        pooled = [ops.roi_align(f, r, n, 4, spatial_scale=1.0 / s, sampling_ratio=2, aligned=True)
                  for f, r, n, s in zip(feats, level_rois, level_nums, self.STRIDES)]
        pooled = paddle.gather(paddle.concat(pooled), restore.reshape([-1]))
        h = F.relu(self.fc6(pooled.flatten(1)))
        scores = F.softmax(self.cls(h), -1)
        deltas = self.box(h).reshape([-1, self.CLASSES + 1, 4])
        boxes = ops.box_coder(rois, [0.1, 0.1, 0.2, 0.2], deltas, code_type="decode_center_size",
                              box_normalized=False, axis=1)
        bbox, index, num = _multiclass_nms3(boxes, scores, rois_num, score_threshold=0.2,
                                            nms_top_k=50, keep_top_k=10, nms_threshold=0.5,
                                            background_label=0)
        return rois, rois_num, bbox, num


class FasterRCNNPPDet(FasterRCNNHead):
    """The RPN as ppdet's RPNHead._gen_proposal exports it: a Python loop over the batch
    (to_static: a `while` on the batch size, the per-image rois appended to tensor arrays), per
    image generate_proposals on every level, and `if num_rois > post_nms_top_n` a topk."""
    POST = 40  # 64x64 images give more rois (topk), 32x32 ones at most 39 (all kept)

    def forward(self, x, im_shape):
        c2 = self.c2(x)
        c3 = self.c3(c2)
        c4 = self.c4(c3)
        c5 = self.c5(c4)
        p5 = self.lateral[3](c5)
        p4 = self.lateral[2](c4) + F.interpolate(p5, scale_factor=2.0, mode="nearest")
        p3 = self.lateral[1](c3) + F.interpolate(p4, scale_factor=2.0, mode="nearest")
        p2 = self.lateral[0](c2) + F.interpolate(p3, scale_factor=2.0, mode="nearest")
        feats = [p2, p3, p4, p5]
        scores, deltas, anchors = [], [], []
        for feat, stride, size in zip(feats, self.STRIDES, self.SIZES):
            t = F.relu(self.rpn_conv(feat))
            scores.append(self.rpn_cls(t))
            deltas.append(self.rpn_box(t))
            anchors.append(self._anchors(feat, stride, size))
        batch_size = paddle.shape(im_shape)[0]
        rois_collect, rois_num_collect = [], []
        for i in range(batch_size):
            level_rois, level_probs = [], []
            for score, delta, anchor in zip(scores, deltas, anchors):
                r, p, _ = ops.generate_proposals(score[i:i + 1], delta[i:i + 1], im_shape[i:i + 1], anchor,
                                                 paddle.ones_like(anchor), pre_nms_top_n=60, post_nms_top_n=12,
                                                 nms_thresh=0.7, min_size=0.0, pixel_offset=False,
                                                 return_rois_num=True)
                level_rois.append(r)
                level_probs.append(p)
            rpn_rois = paddle.concat(level_rois)
            rpn_prob = paddle.concat(level_probs).flatten()
            num_rois = paddle.shape(rpn_prob)[0].cast("int32")
            if num_rois > self.POST:
                topk_prob, topk_inds = paddle.topk(rpn_prob, self.POST)
                topk_rois = paddle.gather(rpn_rois, topk_inds)
            else:
                topk_rois = rpn_rois
            rois_collect.append(topk_rois)
            rois_num_collect.append(paddle.shape(topk_rois)[0:1])
        rois = paddle.concat(rois_collect)
        rois_num = paddle.concat(rois_num_collect).cast("int32")
        level_rois, restore, level_nums = ops.distribute_fpn_proposals(
            rois, 2, 5, 4, 32, pixel_offset=False, rois_num=rois_num)
        pooled = [ops.roi_align(f, r, n, 4, spatial_scale=1.0 / s, sampling_ratio=2, aligned=True)
                  for f, r, n, s in zip(feats, level_rois, level_nums, self.STRIDES)]
        pooled = paddle.gather(paddle.concat(pooled), restore.reshape([-1]))
        h = F.relu(self.fc6(pooled.flatten(1)))
        return rois, rois_num, F.softmax(self.cls(h), -1)


def faster_rcnn_ppdet(name):
    model = faster_rcnn_head(name)
    model.layer = FasterRCNNPPDet()
    model.notes = {"rpn": "ppdet RPNHead._gen_proposal: a while over the batch, tensor arrays, "
                          "an if on the proposal count (topk or all)",
                   "batches": "Paddle's ArrayToTensor requires every element's dims equal (its concat "
                              "check), so a batch whose images keep different numbers of rois fails in "
                              "both releases: the batches here keep the same count per image"}
    # the main input keeps 39 rois an image (all: the else branch), b1_h96w64 more (the topk)
    del model.cases["b3_h32"]  # 26, 26 and 29 rois: Paddle's ArrayToTensor refuses them
    model.cases["small_h32w32"] = {"x": image(name, [1, 3, 32, 32], "small"),
                                   "im_shape": np.array([[32, 32]], np.float32)}
    return model


def faster_rcnn_head(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x"),
             paddle.static.InputSpec([-1, 2], "float32", "im_shape")]

    def shapes(n, h, w):
        return np.array([[h, w]] * n, np.float32)

    cases = {
        "b1_h96w64": {"x": image(name, [1, 3, 96, 64], "b1"), "im_shape": shapes(1, 96, 64)},
        "b3_h32": {"x": image(name, [3, 3, 32, 32], "b3"), "im_shape": shapes(3, 32, 32)},
        "uniform": {"x": np.zeros([1, 3, 64, 64], np.float32), "im_shape": shapes(1, 64, 64)},
        "identical": {"x": _uniform([2, 3, 64, 64], -20.0), "im_shape": shapes(2, 64, 64)},
    }
    return Model(FasterRCNNHead(), specs, {"x": image(name, [2, 3, 64, 64]), "im_shape": shapes(2, 64, 64)},
                 {"fpn": "P2-P5 (strides 4-32); collect_fpn_proposals then distribute_fpn_proposals "
                         "(refer level 4, scale 32)"}, cases)


# -- Faster R-CNN C4 / R-FCN: anchor_generator, generate_proposals, roi_pool, psroi_pool -----


def _anchor_generator(feat, sizes, ratios, variances, stride, offset):
    """The anchor_generator op (PaddleDetection 1.x's C4 detectors): _C_ops in the program;
    the legacy entry point when the layer runs eagerly (the new one has no dygraph binding)."""
    if paddle.in_dynamic_mode():
        return paddle._legacy_C_ops.anchor_generator(
            feat, "anchor_sizes", sizes, "aspect_ratios", ratios, "variances", variances,
            "stride", stride, "offset", offset)
    return paddle._C_ops.anchor_generator(feat, sizes, ratios, variances, stride, offset)


class RFCNHead(nn.Layer):
    CLASSES = 3  # + background
    SIZES, RATIOS = [32.0, 64.0], [0.5, 1.0, 2.0]

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2), _conv(16, 16, stride=2),
                                  _conv(16, 32, stride=2))
        a = len(self.SIZES) * len(self.RATIOS)
        self.rpn = nn.Conv2D(32, 32, 3, padding=1)
        self.rpn_cls = nn.Conv2D(32, a, 1)
        self.rpn_box = nn.Conv2D(32, 4 * a, 1)
        self.fc = nn.Linear(32 * 4 * 4, self.CLASSES + 1)
        self.ps = nn.Conv2D(32, (self.CLASSES + 1) * 3 * 3, 1)

    def forward(self, x, im_shape):
        feat = self.body(x)
        t = F.relu(self.rpn(feat))
        anchors, variances = _anchor_generator(feat, self.SIZES, self.RATIOS, [1.0, 1.0, 1.0, 1.0],
                                               [16.0, 16.0], 0.5)
        rois, _, num = ops.generate_proposals(self.rpn_cls(t), self.rpn_box(t), im_shape,
                                              anchors.reshape([-1, 4]), variances.reshape([-1, 4]),
                                              pre_nms_top_n=50, post_nms_top_n=10, nms_thresh=0.7,
                                              min_size=2.0, pixel_offset=True, return_rois_num=True)
        pooled = ops.roi_pool(feat, rois, num, 4, spatial_scale=1.0 / 16)
        c4_scores = F.softmax(self.fc(pooled.flatten(1)), -1)
        ps = ops.psroi_pool(self.ps(feat), rois, num, 3, spatial_scale=1.0 / 16)
        rfcn_scores = F.softmax(ps.mean([2, 3]), -1)
        return rois, num, c4_scores, rfcn_scores


def rfcn_c4_head(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x"),
             paddle.static.InputSpec([-1, 2], "float32", "im_shape")]

    def shapes(n, h, w):
        return np.array([[h, w]] * n, np.float32)

    cases = {
        "b1_h96w64": {"x": image(name, [1, 3, 96, 64], "b1"), "im_shape": shapes(1, 96, 64)},
        "b3_h32": {"x": image(name, [3, 3, 32, 32], "b3"), "im_shape": shapes(3, 32, 32)},
        "uniform": {"x": np.zeros([1, 3, 64, 64], np.float32), "im_shape": shapes(1, 64, 64)},
        "identical": {"x": _uniform([2, 3, 64, 64], -20.0), "im_shape": shapes(2, 64, 64)},
    }
    return Model(RFCNHead(), specs, {"x": image(name, [2, 3, 64, 64]), "im_shape": shapes(2, 64, 64)},
                 {"anchors": "the anchor_generator op (stride 16, sizes 32 and 64, 3 ratios)",
                  "heads": "Faster R-CNN C4 (roi_pool 4x4 + fc) and R-FCN (psroi_pool 3x3) on the same rois"},
                 cases)


# -- matrix NMS (PP-YOLO / SOLOv2 post-processing) over FCOS-style boxes --------------------


class MatrixNMSHead(nn.Layer):
    CLASSES = 3
    STRIDE = 8
    SCORE, POST = 0.6, 0.5  # score_threshold, post_threshold

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2), _conv(16, 16, stride=2))
        self.reg = nn.Conv2D(16, 4, 3, padding=1)
        self.cls = nn.Conv2D(16, self.CLASSES, 3, padding=1)

    def forward(self, x):
        feat = self.stem(x)
        shape = paddle.shape(x)
        h, w = shape[2].astype("float32"), shape[3].astype("float32")
        fs = paddle.shape(feat)
        xs = (paddle.arange(0, fs[3], dtype="float32") + 0.5) * self.STRIDE
        ys = (paddle.arange(0, fs[2], dtype="float32") + 0.5) * self.STRIDE
        cy, cx = paddle.meshgrid(ys, xs)
        ltrb = paddle.exp(self.reg(feat)).flatten(2) * self.STRIDE  # [N, 4, HW]
        cx, cy = cx.reshape([1, -1]), cy.reshape([1, -1])
        boxes = paddle.stack([paddle.clip(cx - ltrb[:, 0], min=0) , paddle.clip(cy - ltrb[:, 1], min=0),
                              paddle.minimum(cx + ltrb[:, 2], w), paddle.minimum(cy + ltrb[:, 3], h)], -1)
        scores = F.sigmoid(self.cls(feat)).flatten(2)  # [N, C, HW]
        linear, index, num = ops.matrix_nms(boxes, scores, self.SCORE, self.POST, 60, 20, use_gaussian=False,
                                            background_label=-1, normalized=False,
                                            return_index=True, return_rois_num=True)
        gauss, _, gnum = ops.matrix_nms(boxes, scores, self.SCORE, self.POST, 60, 20, use_gaussian=True,
                                        gaussian_sigma=2.0, background_label=-1, normalized=False,
                                        return_index=True, return_rois_num=True)
        return linear, index, num, gauss, gnum


def solo_matrix_nms(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x")]
    cases = {
        "b1_h96w64": {"x": image(name, [1, 3, 96, 64], "b1")},
        "b3_h32": {"x": image(name, [3, 3, 32, 32], "b3")},
        "none_kept": {"x": np.zeros([1, 3, 64, 64], np.float32)},
        "one_box": {"x": _spot([1, 3, 64, 64], 0.0, 4.0, 24, 24, 4)},
        "uniform": {"x": _uniform([2, 3, 64, 64], 5.0)},
        "uniform_saturated": {"x": _uniform([2, 3, 64, 64], 20.0)},
    }
    return Model(MatrixNMSHead(), specs, {"x": image(name, [2, 3, 64, 64])},
                 {"nms": "matrix_nms linear and gaussian on the same boxes",
                  "uniform": "a uniform image: interior cells tie exactly (scores and decays); which tied "
                             "row comes first is what libstdc++'s partial_sort leaves, and depends on the "
                             "last bits of every other score (pirc's convolutions are not oneDNN's to the "
                             "bit), so the uniform images are ones whose order does not hinge on them; "
                             "yolov3_head and nms_postprocess hold identical boxes"}, cases)


# -- DBNet text detector: DCNv2 in the backbone, FPN, differentiable binarization ------------


class DeformBlock(nn.Layer):
    """PaddleOCR's DeformableConvV2: offsets and a sigmoid mask from a plain conv."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.offset = nn.Conv2D(cin, 3 * 9, 3, stride, 1)
        self.conv = ops.DeformConv2D(cin, cout, 3, stride, 1, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)

    def forward(self, x):
        om = self.offset(x)
        offset, mask = om[:, :18], F.sigmoid(om[:, 18:])
        return F.relu(self.bn(self.conv(x, offset, mask)))


class DBHeadBranch(nn.Layer):
    def __init__(self, cin):
        super().__init__()
        self.conv = _conv(cin, cin // 4)
        self.up1 = nn.Conv2DTranspose(cin // 4, cin // 4, 2, 2)
        self.bn = nn.BatchNorm2D(cin // 4)
        self.up2 = nn.Conv2DTranspose(cin // 4, 1, 2, 2)

    def forward(self, x):
        return F.sigmoid(self.up2(F.relu(self.bn(self.up1(self.conv(x))))))


class DBNet(nn.Layer):
    K = 50.0

    def __init__(self):
        super().__init__()
        self.c2 = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2))
        self.c3 = DeformBlock(16, 16, 2)
        self.c4 = DeformBlock(16, 32, 2)
        self.in3 = nn.Conv2D(16, 16, 1, bias_attr=False)
        self.in4 = nn.Conv2D(32, 16, 1, bias_attr=False)
        self.in2 = nn.Conv2D(16, 16, 1, bias_attr=False)
        self.out = nn.LayerList([nn.Conv2D(16, 4, 3, padding=1, bias_attr=False) for _ in range(3)])
        self.binarize = DBHeadBranch(12)
        self.thresh = DBHeadBranch(12)

    def forward(self, x):
        c2 = self.c2(x)
        c3 = self.c3(c2)
        c4 = self.c4(c3)
        p4 = self.in4(c4)
        p3 = self.in3(c3) + F.upsample(p4, scale_factor=2, mode="nearest", align_mode=1)
        p2 = self.in2(c2) + F.upsample(p3, scale_factor=2, mode="nearest", align_mode=1)
        fuse = paddle.concat([F.upsample(self.out[2](p4), scale_factor=4, mode="nearest", align_mode=1),
                              F.upsample(self.out[1](p3), scale_factor=2, mode="nearest", align_mode=1),
                              self.out[0](p2)], 1)
        shrink = self.binarize(fuse)
        thresh = self.thresh(fuse)
        binary = paddle.reciprocal(1 + paddle.exp(-self.K * (shrink - thresh)))
        return paddle.concat([shrink, thresh, binary], 1)


def db_ocr_det(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x")]
    cases = {
        "b1_h32w96": {"x": image(name, [1, 3, 32, 96], "b1")},
        "b3_h48w32": {"x": image(name, [3, 3, 48, 32], "b3")},
    }
    return Model(DBNet(), specs, {"x": image(name, [2, 3, 64, 64])},
                 {"sizes": "height and width multiples of 16 (the FPN's upsampling)"}, cases)


# -- TPS rectification (PaddleOCR's TPS: localisation, grid generator) + CTC recogniser -------


class TPS(nn.Layer):
    F = 10  # fiducial points, F/2 on the top and bottom edges
    OUT_H, OUT_W = 16, 48

    def __init__(self):
        super().__init__()
        self.loc = nn.Sequential(_conv(3, 8, stride=2), _conv(8, 16, stride=2), nn.AdaptiveAvgPool2D(1))
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, self.F * 2)

    def _C(self):
        half = self.F // 2
        xs = paddle.linspace(-1.0, 1.0, half, dtype="float64")
        top = paddle.stack([xs, -paddle.ones([half], "float64")], 1)
        bottom = paddle.stack([xs, paddle.ones([half], "float64")], 1)
        return paddle.concat([top, bottom], 0)  # [F, 2]

    def _P(self):
        gx = (paddle.arange(-self.OUT_W, self.OUT_W, 2, dtype="float64") + 1.0) / self.OUT_W
        gy = (paddle.arange(-self.OUT_H, self.OUT_H, 2, dtype="float64") + 1.0) / self.OUT_H
        y, x = paddle.meshgrid(gy, gx)
        return paddle.stack([x, y], 2).reshape([-1, 2])  # [h * w, 2]

    def forward(self, x):
        f = self.F
        h = F.relu(self.fc1(self.loc(x).flatten(1)))
        c_prime = self.fc2(h).reshape([-1, f, 2])
        C, P = self._C(), self._P()
        hat = paddle.norm(C.reshape([1, f, 2]) - C.reshape([f, 1, 2]), axis=2) + paddle.eye(f, dtype="float64")
        hat = (hat ** 2) * paddle.log(hat)
        delta = paddle.concat([
            paddle.concat([paddle.ones([f, 1], "float64"), C, hat], 1),
            paddle.concat([paddle.zeros([2, 3], "float64"), C.transpose([1, 0])], 1),
            paddle.concat([paddle.zeros([1, 3], "float64"), paddle.ones([1, f], "float64")], 1)], 0)
        inv_delta = paddle.inverse(delta).astype("float32")
        n = P.shape[0]
        diff = P.reshape([n, 1, 2]) - C.reshape([1, f, 2])
        norm = paddle.norm(diff, axis=2)
        rbf = paddle.square(norm) * paddle.log(norm + 1e-6)
        p_hat = paddle.concat([paddle.ones([n, 1], "float64"), P, rbf], 1).astype("float32")
        zeros = paddle.zeros([paddle.shape(c_prime)[0], 3, 2], "float32")
        t = paddle.matmul(inv_delta, paddle.concat([c_prime, zeros], 1))
        grid = paddle.matmul(p_hat, t).reshape([-1, self.OUT_H, self.OUT_W, 2])
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=True)


class TPSRecogniser(nn.Layer):
    CLASSES = 11  # CTC blank + 10

    def __init__(self):
        super().__init__()
        self.tps = TPS()
        self.body = nn.Sequential(_conv(3, 16), nn.MaxPool2D(2, 2), _conv(16, 32), nn.MaxPool2D((2, 1), (2, 1)),
                                  _conv(32, 32), nn.AdaptiveAvgPool2D((1, None)))
        self.fc = nn.Linear(32, self.CLASSES)

    def forward(self, x):
        rect = self.tps(x)
        seq = self.body(rect).squeeze(2).transpose([0, 2, 1])  # [N, W/2, C]
        probs = F.softmax(self.fc(seq), -1)
        return rect, probs, probs.argmax(-1)


def _smooth(name, shape, feed):
    """A smooth image (bilinear upsampling of a grid 8 times coarser): a text line, not white
    noise, so that the rectified pixels are not dominated by the image's gradient times the
    sampling grid's last bits."""
    n, c, h, w = shape
    coarse = image(name, [n, c, h // 8 + 2, w // 8 + 2], feed)
    ys = np.linspace(0, h // 8 + 1, h)
    xs = np.linspace(0, w // 8 + 1, w)
    rows = np.stack([np.stack([np.interp(xs, np.arange(coarse.shape[3]), r) for r in ch], 0)
                     for img in coarse for ch in img]).reshape(n, c, -1, w)
    out = np.stack([np.interp(ys, np.arange(rows.shape[2]), rows[i, j, :, k])
                    for i in range(n) for j in range(c) for k in range(w)], 0)
    return out.reshape(n, c, w, h).transpose(0, 1, 3, 2).astype(np.float32).copy()


def tps_ocr_rec(name):
    specs = [paddle.static.InputSpec([-1, 3, -1, -1], "float32", "x")]
    cases = {
        "b1_h48w160": {"x": _smooth(name, [1, 3, 48, 160], "b1")},
        "b3_h24w64": {"x": _smooth(name, [3, 3, 24, 64], "b3")},
        "outside": {"x": _smooth(name, [2, 3, 32, 100], "outside") * 6.0},
    }
    return Model(TPSRecogniser(), specs, {"x": _smooth(name, [2, 3, 32, 100], "x")},
                 {"tps": "PaddleOCR's TPS grid generator (float64 inverse), F=10 fiducials, 16x48 output; "
                         "`outside` drives fiducials past the image (grid_sample's zero padding)"}, cases)


# -- NMS exported on its own (a detector's post-processing over decoded boxes and scores) -----


class NMSPostprocess(nn.Layer):
    """multiclass_nms3, matrix_nms (linear and gaussian) and paddle.vision.ops.nms (by
    score, class-agnostic) over the same boxes: the inputs are the boxes, so the cases can hold
    identical boxes (IoU 1, the matrix NMS decay's 0 / 0) and exactly tied scores."""

    def forward(self, boxes, scores):
        multi, multi_index, multi_num = _multiclass_nms3(boxes, scores, score_threshold=0.3,
                                                         nms_top_k=-1, keep_top_k=12,
                                                         nms_threshold=0.5, normalized=True)
        lin, lin_index, lin_num = ops.matrix_nms(boxes, scores, 0.3, 0.2, -1, 12, use_gaussian=False,
                                                 background_label=-1, return_index=True)
        gauss, _, gauss_num = ops.matrix_nms(boxes, scores, 0.3, 0.2, -1, 12, use_gaussian=True,
                                             background_label=-1, return_index=True)
        flat = boxes.reshape([-1, 4])
        best = scores.transpose([0, 2, 1]).reshape([-1, paddle.shape(scores)[1]])
        # class-agnostic: Paddle 3.0.0's static nms with `categories` fails on an empty category
        keep = ops.nms(flat, 0.5, best.max(1))
        return multi, multi_index, multi_num, lin, lin_index, lin_num, gauss, gauss_num, keep


def _boxes(name, n, m, feed):
    r = rng(name, feed)
    xy = r.uniform(0.0, 0.7, [n, m, 2])
    wh = r.uniform(0.05, 0.3, [n, m, 2])
    return np.concatenate([xy, xy + wh], -1).astype(np.float32)


def _scores(name, n, m, feed, high=1.0):
    return rng(name, feed).uniform(0.0, high, [n, 3, m]).astype(np.float32)


def nms_postprocess(name):
    specs = [paddle.static.InputSpec([-1, -1, 4], "float32", "boxes"),
             paddle.static.InputSpec([-1, 3, -1], "float32", "scores")]
    same = np.tile(np.array([[[0.2, 0.2, 0.6, 0.6]]], np.float32), [1, 6, 1])
    tied = np.full([1, 3, 6], 0.8, np.float32)
    mixed_boxes = _boxes(name, 2, 16, "mixed")
    mixed_boxes[:, 8:] = mixed_boxes[:, :8]  # every box twice
    mixed_scores = _scores(name, 2, 16, "mixed_s")
    mixed_scores[:, :, 12:] = mixed_scores[:, :, 4:8]  # and some scores tied with their twin's
    one = _scores(name, 1, 10, "one", high=0.25)
    one[0, 1, 3] = 0.9
    cases = {
        "none_kept": {"boxes": _boxes(name, 1, 10, "none"), "scores": _scores(name, 1, 10, "none_s", 0.25)},
        "one_box": {"boxes": _boxes(name, 1, 10, "one_b"), "scores": one},
        "single_input_box": {"boxes": _boxes(name, 1, 1, "single"), "scores": _scores(name, 1, 1, "single_s")},
        "identical": {"boxes": same, "scores": tied},
        "identical_pairs": {"boxes": mixed_boxes, "scores": mixed_scores},
        "b3_m40": {"boxes": _boxes(name, 3, 40, "b3"), "scores": _scores(name, 3, 40, "b3_s")},
    }
    return Model(NMSPostprocess(), specs, {"boxes": _boxes(name, 2, 24, "boxes"),
                                           "scores": _scores(name, 2, 24, "scores")},
                 {"inputs": "decoded boxes (normalized) and per-class scores, as a detector's "
                            "post-processing exported on its own"}, cases)


MODELS = {
    "yolov3_head": yolov3_head,
    "ssd_head": ssd_head,
    "faster_rcnn_head": faster_rcnn_head,
    "rfcn_c4_head": rfcn_c4_head,
    "faster_rcnn_ppdet": faster_rcnn_ppdet,
    "solo_matrix_nms": solo_matrix_nms,
    "db_ocr_det": db_ocr_det,
    "tps_ocr_rec": tps_ocr_rec,
    "nms_postprocess": nms_postprocess,
}
