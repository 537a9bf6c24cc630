"""The compiled form of `op_pair_patches`: add or remove the value between two ops.

`object: [i, j]` is [output index of the producer (op_pair[0]), input index of
the consumer (op_pair[1])], which is what Paddle's code does (its Readme says
the opposite; notes/paddle-pir-source.md 1.2).  Paddle applies the pair by
name: every op named producer gets the output change and every op named
consumer the input change, all under one fresh value id per block, which is
only right when a block holds one of each.  pirc keeps "every op of the name"
and connects each consumer to its own producer:

add_value [i, j] (type T)
  * every producer with exactly i results gets a new result i of type T (one
    that has it already keeps it);
  * every consumer gets, at operand j, result i of its producer: the producer
    whose result it already uses (if exactly one op named producer feeds it),
    else the nearest op named producer before it in its block or an enclosing
    block.  A consumer with neither is refused.  A consumer whose operand j is
    already result i of a producer is left alone (idempotent).

delete_value [i, j]
  * every producer loses result i; the uses of it at operand j of consumers go
    with it.  A use by any other op, or at another operand, would be left
    without a definition: refused, naming the op;
  * every consumer loses operand j (as in Paddle), when a producer did not
    remove it already.
"""

from __future__ import annotations

from .op_actions import OpAction, add_result_once, remove_result


class _PairAction(OpAction):
    def __init__(self, producer: str, consumer: str, out_index: int, in_index: int, source: str = ""):
        super().__init__(source)
        self.producer = producer
        self.consumer = consumer
        self.out_index = out_index
        self.in_index = in_index

    def describe(self) -> str:
        return f"{self.action} [{self.out_index}, {self.in_index}] on ({self.producer}, {self.consumer})"

    def op_names(self) -> tuple[str, ...]:
        return (self.producer, self.consumer) if self.producer != self.consumer else (self.producer,)


class AddValue(_PairAction):
    action = "add_value"

    def __init__(self, producer, consumer, out_index, in_index, type_, source: str = ""):
        super().__init__(producer, consumer, out_index, in_index, source)
        self.type = type_

    def apply(self, op, ctx) -> bool:
        changed = False
        if op.name == self.producer:
            changed |= self._give_result(op, ctx)
        if op.name == self.consumer:
            changed |= self._connect(op, ctx)
        return changed

    def _give_result(self, producer, ctx) -> bool:
        return add_result_once(producer, self.out_index, self.type, ctx, self, "the producer")

    def _connect(self, consumer, ctx) -> bool:
        operands = list(consumer.operands)
        j = self.in_index
        if j < len(operands) and self._is_new_value(operands[j]):
            return False
        if j > len(operands):
            ctx.refuse(consumer, self, f"the consumer has {len(operands)} operands; an operand at "
                                       f"index {j} would leave a gap")
            return False
        producer = self._producer_of(consumer)
        if producer is None:
            ctx.refuse(consumer, self, f"no {self.producer} feeds or precedes it to take the value from")
            return False
        if not self._give_result(producer, ctx) and len(producer.results) <= self.out_index:
            return False
        operands.insert(j, producer.results[self.out_index])
        consumer.operands = operands
        return True

    def _is_new_value(self, value) -> bool:
        owner = getattr(value, "op", None)
        return owner is not None and owner.name == self.producer and value.index == self.out_index

    def _producer_of(self, consumer):
        feeding = {id(v.op): v.op for v in consumer.operands
                   if getattr(v, "op", None) is not None and v.op.name == self.producer}
        if len(feeding) == 1:
            return next(iter(feeding.values()))
        node = consumer
        while node is not None:
            prev = node.prev_op
            while prev is not None:
                if prev.name == self.producer:
                    return prev
                prev = prev.prev_op
            block = node.parent
            region = block.parent if block is not None else None
            node = region.parent if region is not None else None
        return None


class DeleteValue(_PairAction):
    """delete_value; with `strict` (the inverse of add_value in a downgrade) a consumer's
    operand j is removed only when it is the producer's value.  With `keep_result` (the
    inverse of an add_value whose producer had result i already at the older version, as
    nanmedian's `out` for nanmedian_grad) only the consumers' operand goes."""

    action = "delete_value"

    def __init__(self, producer, consumer, out_index, in_index, source: str = "", strict: bool = False,
                 keep_result: bool = False):
        super().__init__(producer, consumer, out_index, in_index, source)
        self.strict = strict
        self.keep_result = keep_result

    def describe(self) -> str:
        text = super().describe()
        return ("undo add_value" + text[len("delete_value"):]) if self.strict else text

    def apply(self, op, ctx) -> bool:
        changed = False
        handled = ctx.handled.setdefault(id(self), set())
        if op.name == self.producer and not self.keep_result:
            changed |= self._drop_result(op, ctx, handled)
        if op.name == self.consumer and id(op) not in handled:
            operands = list(op.operands)
            if len(operands) > self.in_index:
                value = operands[self.in_index]
                if not self.strict or self._is_pair_value(value):
                    del operands[self.in_index]
                    op.operands = operands
                    changed = True
                    handled.add(id(op))
        return changed

    def _is_pair_value(self, value) -> bool:
        owner = getattr(value, "op", None)
        return owner is not None and owner.name == self.producer and value.index == self.out_index

    def _drop_result(self, producer, ctx, handled) -> bool:
        if len(producer.results) <= self.out_index:
            return False
        result = producer.results[self.out_index]
        uses = list(result.uses)
        strangers = [u for u in uses
                     if u.operation.name != self.consumer or u.index != self.in_index]
        if strangers:
            users = sorted({f"{u.operation.name} (operand {u.index})" for u in strangers})
            ctx.refuse(producer, self, f"result {self.out_index} is also used by {', '.join(users)}; "
                                       f"removing it would leave them without a value")
            return False
        for use in uses:
            consumer = use.operation
            operands = list(consumer.operands)
            del operands[self.in_index]
            consumer.operands = operands
            handled.add(id(consumer))
        remove_result(producer, self.out_index)
        return True
