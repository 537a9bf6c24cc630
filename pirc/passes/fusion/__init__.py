"""Fusion passes, one module each, written as declarative rules
(pirc.passes.infra.declarative): each turns a composition of Paddle ops into one of Paddle's
fused ops (or an `npu` dialect op where Paddle has none).  docs/FUSION.md lists them, the PIR
versions each is proven at, and which targets real Paddle runs on any x86-64 (`fuse`) or
only on a device (`npu`)."""
