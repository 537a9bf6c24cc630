"""Writes the near-miss twins of fuse-attention, fuse-rotary and fuse-scaled-softmax
(tests/fixtures/near_misses/<pass>/CASE.{miss,fuse}.pir): python -m tools.gen_attention_near_misses."""
from pathlib import Path
ROOT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "near_misses"
DT = {"f32": "float32", "f16": "float16", "f64": "float64", "b": "bool", "i64": "int64"}

class P:
    def __init__(self):
        self.lines, self.n = [], 0
    def t(self, shape, dt="f32"):
        return "tensor<" + "x".join(map(str, shape)) + ("x" if shape else "") + dt + ">"
    def emit(self, text, types_in, type_out):
        v = f"%{self.n}"; self.n += 1
        self.lines.append(f"    ({v}) = {text} : ({', '.join(types_in)}) -> {type_out}")
        return v
    def data(self, name, shape, dt="f32"):
        return self.emit(f'"pd_op.data" () {{dtype:{DT[dt]},name:"{name}",place:Place(undefined:0),shape:[{",".join(map(str, shape))}],stop_gradient:[true]}}', [], self.t(shape, dt))
    def full(self, value, dt="f32", shape=(1,)):
        return self.emit(f'"pd_op.full" () {{dtype:{DT[dt]},place:Place(cpu),shape:[{",".join(map(str, shape))}],stop_gradient:[true],value:{value}}}', [], self.t(shape, dt))
    def ints(self, values):
        return self.emit(f'"pd_op.full_int_array" () {{dtype:int64,place:Place(cpu),stop_gradient:[true],value:[{",".join(map(str, values))}]}}', [], self.t((len(values),), "i64"))
    def op(self, name, args, arg_types, out_type, **attrs):
        a = ",".join([f"{k}:{v}" for k, v in attrs.items()] + ["stop_gradient:[true]"])
        a = ",".join(sorted(a.split(","), key=lambda s: s.split(":")[0])) if "[" not in a.replace("stop_gradient:[true]", "") else a
        return self.emit(f'"{name}" ({", ".join(args)}) {{{a}}}', arg_types, out_type)
    def fetch(self, v, shape, col=0, name="out", dt="f32"):
        self.lines.append(f'    (%{self.n}) = "pd_op.fetch" ({v}) {{col:{col},name:"{name}",persistable:[true],stop_gradient:[true]}} : ({self.t(shape, dt)}) -> {self.t(shape, dt)}')
        self.n += 1
    def text(self, header):
        return "\n".join(f"// {k}: {v}" for k, v in header.items()) + "\n{\n" + "\n".join(self.lines) + "\n}\n"

def write(pass_, case, target, failed, miss, fuse, version=4, tol=None):
    for kind, build in (("miss", miss), ("fuse", fuse)):
        h = {"pass": pass_, "target": target, "from-version": str(version)}
        if kind == "miss": h["failed"] = failed
        if tol: h["tolerance"] = tol
        (ROOT / pass_ / f"{case}.{kind}.pir").write_text(build().text(h))

# ---- attention -------------------------------------------------------------------------
def attention(scale=0.35, bias=0, tx="false", axis=-1, kshape=(2, 2, 4, 8), mask=None, fetch_probs=False,
              dropout=None, dt="f32", scale_on="scores", multiply=False, written=False):
    def build():
        p = P(); B, N, S, D = 2, 2, 4, 8
        q = p.data("q", [B, N, D, S] if tx == "true" else [B, N, S, D], dt); k = p.data("k", list(kshape), dt); v = p.data("v", [B, N, S, D], dt)
        t4, k4, s4 = p.t([B, N, S, D], dt), p.t(list(kshape), dt), p.t([B, N, S, S], dt)
        mk = None
        if mask == "float":
            mk = p.data("m", [B, 1, S, S], dt)
        elif mask in ("inverted", "inverted_one"):   # where(masked, -inf, 0 or 1)
            b = p.data("masked", [B, 1, S, S], "b")
            ninf = p.full("-inf", dt, (B, 1, S, S))
            z = p.full(0.0 if mask == "inverted" else 1.0, dt, (B, 1, S, S))
            mk = p.op("pd_op.where", [b, ninf, z], [p.t([B, 1, S, S], "b"), p.t([B, 1, S, S], dt), p.t([B, 1, S, S], dt)], p.t([B, 1, S, S], dt))
        elif mask in ("bool", "finfo", "1-cast"):
            b = p.data("keep", [B, 1, S, S], "b")
            if mask == "1-cast":
                c = p.op("pd_op.cast", [b], [p.t([B, 1, S, S], "b")], p.t([B, 1, S, S], dt), dtype=DT[dt])
                one = p.full(-1.0, dt)
                neg = p.op("pd_op.scale", [c, one], [p.t([B, 1, S, S], dt), p.t((1,), dt)], p.t([B, 1, S, S], dt), bias="1", bias_after_scale="true")
                big = p.full(-10000.0, dt)
                mk = p.op("pd_op.scale", [neg, big], [p.t([B, 1, S, S], dt), p.t((1,), dt)], p.t([B, 1, S, S], dt), bias="0", bias_after_scale="true")
            else:
                z = p.full(0.0, dt, (B, 1, S, S))
                ninf = p.full("-inf" if mask == "bool" else "-3.40282e+38", dt, (B, 1, S, S))
                mk = p.op("pd_op.where", [b, z, ninf], [p.t([B, 1, S, S], "b"), p.t([B, 1, S, S], dt), p.t([B, 1, S, S], dt)], p.t([B, 1, S, S], dt))
                if written:   # b flipped in place after the mask was made from it
                    p.op("pd_op.logical_not_", [b], [p.t([B, 1, S, S], "b")], p.t([B, 1, S, S], "b"))
        s = p.full(scale, dt)
        if scale_on == "q":
            q = p.op("pd_op.scale", [q, s], [t4, p.t((1,), dt)], t4, bias=str(bias), bias_after_scale="true")
        qk = p.op("pd_op.matmul", [q, k], [p.t([B, N, D, S], dt) if tx == "true" else t4, k4], s4, transpose_x=tx, transpose_y="true")
        x = qk
        if scale_on == "scores":
            if multiply:
                x = p.op("pd_op.multiply", [qk, s], [s4, p.t((1,), dt)], s4)
            else:
                x = p.op("pd_op.scale", [qk, s], [s4, p.t((1,), dt)], s4, bias=str(bias), bias_after_scale="true")
        if mk is not None:
            x = p.op("pd_op.add", [x, mk], [s4, p.t([B, 1, S, S], dt)], s4)
        sm = p.op("pd_op.softmax", [x], [s4], s4, axis=str(axis))
        probs = sm
        if dropout is not None:
            pp = p.full(0.1, "f32")
            probs = p.emit(f'"pd_op.dropout" ({sm}, <<NULL VALUE>>, {pp}) {{fix_seed:true,is_test:{dropout},mode:"upscale_in_train",seed:7,stop_gradient:[true]}}', [s4, "<<NULL TYPE>>", p.t((1,), "f32")], s4)
            # dropout has two results: rewrite the last line to bind both
            last = p.lines[-1]; p.lines[-1] = last.replace(f"({probs}) =", f"({probs}, %{p.n}) =", 1).replace(f"-> {s4}", f"-> {s4}, {p.t([B, N, S, S], 'u8')}")
            p.n += 1
        out = p.op("pd_op.matmul", [probs, v], [s4, t4], t4, transpose_x="false", transpose_y="false")
        p.fetch(out, [B, N, S, D], dt=dt)
        if fetch_probs:
            p.fetch(sm, [B, N, S, S], col=1, name="probs", dt=dt)
        return p
    return build

A = "fuse-attention"; T = "npu.fusion_attention"
write(A, "scale_bias", T, "attribute bias", attention(bias=1), attention())
write(A, "transpose_x", T, "transpose_x false", attention(tx="true"), attention())
write(A, "softmax_axis", T, "softmax over the last axis", attention(axis=2), attention())
write(A, "head_broadcast", T, "static, equal B and N", attention(kshape=(2, 1, 4, 8)), attention())
write(A, "float_mask", T, "mask is provably 0/-inf", attention(mask="float"), attention(mask="bool"))
write(A, "finfo_min_mask", T, "mask is provably 0/-inf", attention(mask="finfo"), attention(mask="bool"))
write(A, "one_minus_cast_mask", T, "mask is provably 0/-inf", attention(mask="1-cast"), attention(mask="bool"))
write(A, "inverted_mask_not_zero", T, "mask is provably 0/-inf", attention(mask="inverted_one"),
      attention(mask="inverted"))
write(A, "mask_bool_written", T, "written in place nowhere", attention(mask="bool", written=True),
      attention(mask="bool"))
write(A, "probs_fetched", T, "one use", attention(fetch_probs=True), attention())
write(A, "dropout_training", T, "dropout is the inference identity", attention(dropout="false"), attention(dropout="true"))
write(A, "float16", T, "float32", attention(dt="f16"), attention(), tol="1e-5 1e-4")
write(A, "multiply_not_constant_scale", T, "attribute bias", attention(bias=2, multiply=False), attention(multiply=True))

def packed(dt="f32", back=True):
    """A BERT block's attention on a packed QKV: reshape to [B, S, 3, N, H], transpose to
    [3, B, N, S, H], slices 0, 1, 2 -> q, k, v (pd_op.self_dp_attention's input)."""
    def build():
        p = P(); B, S, N, H = 2, 4, 2, 8
        x = p.data("qkv", [B, S, 3 * N * H], dt)
        shp = p.ints([0, 0, 3, N, H])
        r = p.op("pd_op.reshape", [x, shp], [p.t([B, S, 3 * N * H], dt), p.t((5,), "i64")], p.t([B, S, 3, N, H], dt))
        t = p.op("pd_op.transpose", [r], [p.t([B, S, 3, N, H], dt)], p.t([3, B, N, S, H], dt), perm="[2,0,3,1,4]")
        t4, s4 = p.t([B, N, S, H], dt), p.t([B, N, S, S], dt)
        idx = [p.ints([i]) for i in range(4)]
        q, k, v = (p.op("pd_op.slice", [t, idx[i], idx[i + 1]], [p.t([3, B, N, S, H], dt), p.t((1,), "i64"), p.t((1,), "i64")], t4, axes="[0]", decrease_axis="[0]", infer_flags="[1]") for i in range(3))
        qk = p.op("pd_op.matmul", [q, k], [t4, t4], s4, transpose_x="false", transpose_y="true")
        s = p.full(0.35355339, dt)
        sc = p.op("pd_op.scale", [qk, s], [s4, p.t((1,), dt)], s4, bias="0", bias_after_scale="true")
        sm = p.op("pd_op.softmax", [sc], [s4], s4, axis="-1")
        out = p.op("pd_op.matmul", [sm, v], [s4, t4], t4, transpose_x="false", transpose_y="false")
        if back:
            out = p.op("pd_op.transpose", [out], [t4], p.t([B, S, N, H], dt), perm="[0,2,1,3]")
            p.fetch(out, [B, S, N, H], dt=dt)
        else:
            p.fetch(out, [B, N, S, H], dt=dt)
        return p
    return build

write(A, "packed_float64", "pd_op.self_dp_attention", "float32", packed(dt="f64"), packed(), tol="1e-5 1e-4")
write(A, "packed_bnsd_float64", "pd_op.self_dp_attention", "float32", packed(dt="f64", back=False),
      packed(back=False), tol="1e-5 1e-4")

def bsnd(mask="bool", kperm="[0,2,3,1]"):
    """LLaMA's layout: q, k, v [B, S, N, D], q scaled after its transpose to [B, N, S, D],
    k^T by one transpose [0, 2, 3, 1], the output transposed back to [B, S, N, D]."""
    def build():
        p = P(); B, S, N, D = 2, 4, 2, 8
        q, k, v = (p.data(n, [B, S, N, D]) for n in ("q", "k", "v"))
        b4, n4, kt4, s4 = p.t([B, S, N, D]), p.t([B, N, S, D]), p.t([B, N, D, S]), p.t([B, N, S, S])
        keep = p.data("keep", [B, 1, S, S], "b")
        z = p.full(0.0, "f32", (B, 1, S, S))
        ninf = p.full("-inf" if mask == "bool" else "-3.40282e+38", "f32", (B, 1, S, S))
        mk = p.op("pd_op.where", [keep, z, ninf], [p.t([B, 1, S, S], "b"), p.t([B, 1, S, S]), p.t([B, 1, S, S])], p.t([B, 1, S, S]))
        qt = p.op("pd_op.transpose", [q], [b4], n4, perm="[0,2,1,3]")
        vt = p.op("pd_op.transpose", [v], [b4], n4, perm="[0,2,1,3]")
        s = p.full(0.25)
        qs = p.op("pd_op.scale", [qt, s], [n4, p.t((1,))], n4, bias="0", bias_after_scale="true")
        kt = p.op("pd_op.transpose", [k], [b4], kt4, perm=kperm)
        qk = p.op("pd_op.matmul", [qs, kt], [n4, kt4], s4, transpose_x="false", transpose_y="false")
        x = p.op("pd_op.add", [qk, mk], [s4, p.t([B, 1, S, S])], s4)
        sm = p.op("pd_op.softmax", [x], [s4], s4, axis="-1")
        o = p.op("pd_op.matmul", [sm, vt], [s4, n4], n4, transpose_x="false", transpose_y="false")
        back = p.op("pd_op.transpose", [o], [n4], b4, perm="[0,2,1,3]")
        p.fetch(back, [B, S, N, D])
        return p
    return build

write(A, "bsnd_finfo_min_mask", T, "mask is provably 0/-inf", bsnd(mask="finfo"), bsnd())

# ---- rotary ----------------------------------------------------------------------------
def rope(lo=(0, 4), hi=(4, 2147483647), cos_last=8, dt="f32", neg=-1.0, cos_shape=None, split_axis=None,
         written=False):
    def build():
        p = P(); B, S, H, D = 2, 4, 2, 8
        x = p.data("x", [B, S, H, D], dt)
        cs = cos_shape or [1, S, 1, cos_last]
        cos = p.data("cos", cs, dt); sin = p.data("sin", cs, dt)
        tx, tc = p.t([B, S, H, D], dt), p.t(cs, dt)
        xc = p.op("pd_op.multiply", [x, cos], [tx, tc], tx)
        if written:   # x changed in place between its two readers
            p.op("pd_op.relu_", [x], [tx], tx)
        if split_axis is not None:   # split_with_num(x, 2, axis) -> builtin.split: the halves
            dims = [B, S, H, D]
            dims[split_axis] //= 2
            th = p.t(dims, dt)
            w = w2 = dims[3]
            ax = p.emit(f'"pd_op.full" () {{dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:{split_axis}}}', [], "tensor<1xi32>")
            parts = p.op("pd_op.split_with_num", [x, ax], [tx, "tensor<1xi32>"], f"vec[{th},{th}]", num="2")
            x1, x2 = f"%{p.n}", f"%{p.n + 1}"
            p.lines.append(f'    ({x1}, {x2}) = "builtin.split" ({parts}) {{stop_gradient:[true,true]}} : (vec[{th},{th}]) -> {th}, {th}')
            p.n += 2
            dims_h = dims
        else:
            a0, a1 = p.ints([lo[0]]), p.ints([lo[1]])
            w = lo[1] - lo[0]
            x1 = p.op("pd_op.slice", [x, a0, a1], [tx, p.t((1,), "i64"), p.t((1,), "i64")], p.t([B, S, H, w], dt), axes="[3]", decrease_axis="[]", infer_flags="[1]")
            b0, b1 = p.ints([hi[0]]), p.ints([hi[1]])
            w2 = D - hi[0]
            x2 = p.op("pd_op.slice", [x, b0, b1], [tx, p.t((1,), "i64"), p.t((1,), "i64")], p.t([B, S, H, w2], dt), axes="[3]", decrease_axis="[]", infer_flags="[1]")
            dims_h = None
        h2 = p.t(dims_h, dt) if dims_h else p.t([B, S, H, w2], dt)
        h1 = p.t(dims_h, dt) if dims_h else p.t([B, S, H, w], dt)
        m1 = p.full(neg, dt)
        n2 = p.op("pd_op.scale", [x2, m1], [h2, p.t((1,), dt)], h2, bias="0", bias_after_scale="true")
        vec = f"vec[{h2},{h1}]"
        comb = p.op("builtin.combine", [n2, x1], [h2, h1], vec)
        cat_axis = -1 if split_axis in (None, 3) else split_axis
        ax = p.emit(f'"pd_op.full" () {{dtype:int32,place:Place(cpu),shape:[1],stop_gradient:[true],value:{cat_axis}}}', [], "tensor<1xi32>")
        cat = p.op("pd_op.concat", [comb, ax], [vec, "tensor<1xi32>"], tx)
        rs = p.op("pd_op.multiply", [cat, sin], [tx, tc], tx)
        out = p.op("pd_op.add", [xc, rs], [tx, tx], tx)
        p.fetch(out, [B, S, H, D], dt=dt)
        return p
    return build

R = "fuse-rotary"; F = "pd_op.fused_rotary_position_embedding"
write(R, "slice_bounds", F, "halves", rope(lo=(0, 3), hi=(3, 2147483647)), rope())
write(R, "slices_swapped", F, "halves", rope(lo=(4, 8), hi=(0, 4)), rope())
write(R, "cos_last_dim", F, "end in its last dim", rope(cos_last=1), rope())
write(R, "float64", F, "float32", rope(dt="f64"), rope(), tol="1e-6 1e-6")
write(R, "split_other_axis", F, "halves", rope(split_axis=1), rope(split_axis=3))
write(R, "x_written_in_place", F, "aliasing: xa is written between", rope(written=True), rope())
write(R, "negation_by_two", F, "not -1.0", rope(neg=-2.0), rope())

# ---- scaled softmax --------------------------------------------------------------------
def ssm(bias=0, axis=-1, dt="f32"):
    def build():
        p = P(); shape = [2, 2, 4, 4]; t = p.t(shape, dt)
        x = p.data("x", shape, dt); s = p.full(0.125, dt)
        y = p.op("pd_op.scale", [x, s], [t, p.t((1,), dt)], t, bias=str(bias), bias_after_scale="true")
        z = p.op("pd_op.softmax", [y], [t], t, axis=str(axis))
        p.fetch(z, shape, dt=dt)
        return p
    return build

S_ = "fuse-scaled-softmax"; N_ = "npu.scaled_masked_softmax"
write(S_, "scale_bias", N_, "attribute bias", ssm(bias=1), ssm())
write(S_, "softmax_axis", N_, "last axis", ssm(axis=1), ssm())
write(S_, "float16", N_, "float32", ssm(dt="f16"), ssm())
