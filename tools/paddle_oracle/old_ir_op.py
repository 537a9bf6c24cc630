"""Build a PIR op that has no PIR Python builder, through Paddle's own program translator.

Many legacy and fusion ops (decayed_adagrad, fused_elemwise_activation, lstm, ...) have a
pd_op definition and a CPU kernel but no `paddle._pir_ops` function: `paddle._C_ops.NAME` is
eager-only and refuses a pir.Value. Paddle's inference passes and old saved models reach them
through the old-IR -> PIR translator, and so does this helper: it appends the fluid op
(`op_type`, its old input/output slot names and attributes) to a scratch old-IR program whose
feeds mirror the given PIR values, translates that program with `paddle.pir.translate_to_pir`,
and clones the translated op(s) into the current PIR program with the feeds mapped onto the
given values. The result is exactly the op the translator emits for a loaded old model.
"""
import paddle


def _dtype(value):
    return str(value.dtype).replace("paddle.", "")


def old_ir_op(op_type, inputs, outputs, attrs=None, keep=None, assign=False, inplace=None):
    """Append fluid op `op_type` to the current PIR program; returns the last cloned op.

    inputs: {slot: [pir.Value, ...]}; outputs: {slot: count}; `keep` (op names) limits the
    translated ops that are cloned (default: every op but the feeds and fetches). With
    `assign`, every output variable is copied by an `assign` op (the translator then splits
    vector results with builtin.split) and the copies come back, in slot order. `inplace`
    ({output slot: input slot}) makes those outputs the input's variables, for which the
    translator emits the in-place op (lod_reset -> pd_op.lod_reset_)."""
    order = []
    with paddle.pir_utils.OldIrGuard():
        old, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(old, start):
            blk = old.global_block()
            ins = {}
            for slot, vals in inputs.items():
                ins[slot] = []
                for i, v in enumerate(vals):
                    name = f"oldir_{slot}_{i}"
                    ins[slot].append(paddle.static.data(name, list(v.shape), _dtype(v)))
                    order.append((name, v))
            outs = {slot: ins[inplace[slot]] if slot in (inplace or {}) else
                    [blk.create_var(name=f"oldir_out_{slot}_{i}") for i in range(n)]
                    for slot, n in outputs.items()}
            blk.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs or {})
            if assign:
                for slot, vs in outs.items():
                    for i, v in enumerate(vs):
                        blk.append_op(type="assign", inputs={"X": [v]},
                                      outputs={"Out": [blk.create_var(name=f"oldir_copy_{slot}_{i}")]})
    prog = paddle.pir.translate_to_pir(old.desc)
    ops = list(prog.global_block().ops)
    data = {o.attrs()["name"]: o.result(0) for o in ops if o.name() == "pd_op.data"}
    mapping = paddle.pir.IrMapping()
    for name, v in order:
        mapping.add(data[name], v)
    last, copies = None, []
    for o in ops:
        if o.name() in ("pd_op.data", "pd_op.feed", "pd_op.fetch"):
            continue
        if keep is not None and o.name() not in keep:
            continue
        last = o.clone(mapping, paddle.pir.CloneOptions(False, True, True))
        if o.name() == "pd_op.assign":
            copies.append(last.result(0))
    return copies if assign else last


def results(op_, *index):
    """The op's results at these positions (all of them by default)."""
    idx = index or range(op_.num_results())
    return [op_.result(i) for i in idx]
