"""paddle.vision.models at small widths and inputs, num_classes=10, batch dim -1.

Where a constructor has a width (`scale`, `width`) it is small; VGG and AlexNet have none and
their 4096-wide classifiers would be 500 / 230 MB of weights, so their Linear layers are
rebuilt 64 wide (same layers and ops, in the same order)."""
from __future__ import annotations

import paddle
from paddle import nn
from paddle.vision import models as M

from .common import Model, image

NUM_CLASSES = 10


def _image_model(name, layer, hw, notes=None):
    shape = [1, 3, hw, hw]
    spec = paddle.static.InputSpec([-1, 3, hw, hw], "float32", "x")
    return Model(layer, [spec], {"x": image(name, shape)}, notes or {})


def resnet18(name):
    return _image_model(name, M.resnet18(num_classes=NUM_CLASSES), 32)


def resnet50_w16(name):
    # BottleneckBlock ResNet-50; `width` 16 narrows each bottleneck's 3x3 conv (base 64).
    return _image_model(name, M.ResNet(M.resnet.BottleneckBlock, 50, width=16, num_classes=NUM_CLASSES),
                        32, {"constructor": "ResNet(BottleneckBlock, 50, width=16)"})


def mobilenet_v1(name):
    return _image_model(name, M.mobilenet_v1(scale=0.25, num_classes=NUM_CLASSES), 32)


def mobilenet_v2(name):
    return _image_model(name, M.mobilenet_v2(scale=0.25, num_classes=NUM_CLASSES), 32)


def mobilenet_v3_small(name):
    return _image_model(name, M.mobilenet_v3_small(scale=0.5, num_classes=NUM_CLASSES), 32)


def shufflenet_v2_x0_25(name):
    return _image_model(name, M.shufflenet_v2_x0_25(num_classes=NUM_CLASSES), 32)


def squeezenet1_0(name):
    return _image_model(name, M.squeezenet1_0(num_classes=NUM_CLASSES), 64)


def densenet121(name):
    return _image_model(name, M.densenet121(num_classes=NUM_CLASSES), 32)


def googlenet(name):
    # its auxiliary heads take 128 * 3 * 3 features: 192 is the smallest square input that gives them
    return _image_model(name, M.googlenet(num_classes=NUM_CLASSES), 192)


def inception_v3(name):
    return _image_model(name, M.inception_v3(num_classes=NUM_CLASSES), 75)


def vgg11(name):
    m = M.vgg11(num_classes=NUM_CLASSES)
    m.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 64), nn.ReLU(), nn.Dropout(),
                                 nn.Linear(64, 64), nn.ReLU(), nn.Dropout(),
                                 nn.Linear(64, NUM_CLASSES))
    return _image_model(name, m, 32, {"classifier": "Linear 25088-64-64-10 (vgg11's is 4096 wide)"})


def alexnet(name):
    # 99x99 input: conv5's pooled output is 2x2, so fc6 takes 256*2*2 (alexnet's 224 gives 6x6).
    m = M.alexnet(num_classes=NUM_CLASSES)
    m._fc6 = nn.Linear(256 * 2 * 2, 64)
    m._fc7 = nn.Linear(64, 64)
    m._fc8 = nn.Linear(64, NUM_CLASSES)
    return _image_model(name, m, 99, {"classifier": "fc6/fc7/fc8 1024-64-64-10 (alexnet's: 9216-4096-4096)"})


MODELS = {f.__name__: f for f in (resnet18, resnet50_w16, mobilenet_v1, mobilenet_v2, mobilenet_v3_small,
                                  shufflenet_v2_x0_25, squeezenet1_0, densenet121, googlenet,
                                  inception_v3, vgg11, alexnet)}
