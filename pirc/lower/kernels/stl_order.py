"""libstdc++'s std::nth_element, std::partial_sort, std::sort and std::stable_sort, step for step.

phi's CPU topk and kthvalue select with these on (value, index) pairs, so which of several
equal values (or -0 and +0, or NaNs) comes out, and at which index, is whatever these
algorithms leave there; no torch builtin reproduces that.  `ordered_rows` runs them on each
row of a [rows, n] tensor in Python, and only for rows that hold ties: a row of distinct
values has one answer, which torch's topk / kthvalue give directly.

The comparator is phi's: a NaN sorts after every number (before, when `largest`).
"""

from __future__ import annotations

import torch


def _less(largest: bool):
    if largest:
        return lambda a, b: (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]
    return lambda a, b: (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _lg(n: int) -> int:
    return n.bit_length() - 1


def _push_heap(v, first, hole, top, value, comp):
    parent = (hole - 1) // 2
    while hole > top and comp(v[first + parent], value):
        v[first + hole] = v[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    v[first + hole] = value


def _adjust_heap(v, first, hole, length, value, comp):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if comp(v[first + second], v[first + second - 1]):
            second -= 1
        v[first + hole] = v[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        v[first + hole] = v[first + second - 1]
        hole = second - 1
    _push_heap(v, first, hole, top, value, comp)


def _make_heap(v, first, last, comp):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(v, first, parent, length, v[first + parent], comp)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(v, first, last, result, comp):
    value = v[result]
    v[result] = v[first]
    _adjust_heap(v, first, 0, last - first, value, comp)


def _heap_select(v, first, middle, last, comp):
    _make_heap(v, first, middle, comp)
    for i in range(middle, last):
        if comp(v[i], v[first]):
            _pop_heap(v, first, middle, i, comp)


def partial_sort(v, first, middle, last, comp):
    _heap_select(v, first, middle, last, comp)
    while middle - first > 1:  # __sort_heap
        middle -= 1
        _pop_heap(v, first, middle, middle, comp)


def _unguarded_linear_insert(v, last, comp):
    value = v[last]
    nxt = last - 1
    while comp(value, v[nxt]):
        v[last] = v[nxt]
        last = nxt
        nxt -= 1
    v[last] = value


def _insertion_sort(v, first, last, comp):
    if first == last:
        return
    for i in range(first + 1, last):
        if comp(v[i], v[first]):
            value = v[i]
            v[first + 1:i + 1] = v[first:i]
            v[first] = value
        else:
            _unguarded_linear_insert(v, i, comp)


def _move_median_to_first(v, result, a, b, c, comp):
    if comp(v[a], v[b]):
        if comp(v[b], v[c]):
            pick = b
        elif comp(v[a], v[c]):
            pick = c
        else:
            pick = a
    elif comp(v[a], v[c]):
        pick = a
    elif comp(v[b], v[c]):
        pick = c
    else:
        pick = b
    v[result], v[pick] = v[pick], v[result]


def _unguarded_partition(v, first, last, pivot, comp):
    while True:
        while comp(v[first], v[pivot]):
            first += 1
        last -= 1
        while comp(v[pivot], v[last]):
            last -= 1
        if not first < last:
            return first
        v[first], v[last] = v[last], v[first]
        first += 1


def _partition_pivot(v, first, last, comp):
    mid = first + (last - first) // 2
    _move_median_to_first(v, first, first + 1, mid, last - 1, comp)
    return _unguarded_partition(v, first + 1, last, first, comp)


def nth_element(v, nth, comp):
    first, last = 0, len(v)
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(v, first, nth + 1, last, comp)
            v[first], v[nth] = v[nth], v[first]
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(v, first, last, comp)


def _introsort_loop(v, first, last, depth, comp):
    while last - first > 16:
        if depth == 0:
            partial_sort(v, first, last, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(v, first, last, comp)
        _introsort_loop(v, cut, last, depth, comp)
        last = cut


def sort(v, first, last, comp):
    if first == last:
        return
    _introsort_loop(v, first, last, _lg(last - first) * 2, comp)
    if last - first > 16:
        _insertion_sort(v, first, first + 16, comp)
        for i in range(first + 16, last):
            _unguarded_linear_insert(v, i, comp)
    else:
        _insertion_sort(v, first, last, comp)


_CHUNK = 7  # libstdc++'s _S_chunk_size


def _move_merge(src, f1, l1, f2, l2, dst, out, comp):
    """__move_merge: src[f1:l1] and src[f2:l2] into dst from `out`, the second run's element
    first only when comp(second, first)."""
    while f1 != l1 and f2 != l2:
        if comp(src[f2], src[f1]):
            dst[out] = src[f2]
            f2 += 1
        else:
            dst[out] = src[f1]
            f1 += 1
        out += 1
    for i in range(f1, l1):
        dst[out] = src[i]
        out += 1
    for i in range(f2, l2):
        dst[out] = src[i]
        out += 1
    return out


def _merge_sort_loop(src, first, last, dst, out, step, comp):
    while last - first >= 2 * step:
        out = _move_merge(src, first, first + step, first + step, first + 2 * step, dst, out, comp)
        first += 2 * step
    step = min(last - first, step)
    _move_merge(src, first, first + step, first + step, last, dst, out, comp)


def _merge_sort_with_buffer(v, first, last, comp):
    n = last - first
    buf = [None] * n
    start = first
    while last - start >= _CHUNK:
        _insertion_sort(v, start, start + _CHUNK, comp)
        start += _CHUNK
    _insertion_sort(v, start, last, comp)
    step = _CHUNK
    while step < n:
        _merge_sort_loop(v, first, last, buf, 0, step, comp)
        step *= 2
        _merge_sort_loop(buf, 0, n, v, first, step, comp)
        step *= 2


def stable_sort(v, comp):
    """std::stable_sort(v.begin(), v.end(), comp) with its buffer: each half merge-sorted
    (insertion-sorted chunks of 7, then merged passes), then the halves merged forward (first
    half no longer than the second) or backward.  Step for step, so a comparator that is not a
    strict weak order (collect_fpn_proposals' `a.score >= b.score`) orders ties as Paddle's."""
    n = len(v)
    if n == 0:
        return
    mid = (n + 1) // 2
    _merge_sort_with_buffer(v, 0, mid, comp)
    _merge_sort_with_buffer(v, mid, n, comp)
    if mid <= n - mid:  # __move_merge_adaptive: the first half from the buffer, forward
        buf = v[:mid]
        f1, f2, out = 0, mid, 0
        while f1 != len(buf) and f2 != n:
            if comp(v[f2], buf[f1]):
                v[out] = v[f2]
                f2 += 1
            else:
                v[out] = buf[f1]
                f1 += 1
            out += 1
        v[out:out + len(buf) - f1] = buf[f1:]
        return
    # __move_merge_adaptive_backward: the second half from the buffer, from the back
    buf = v[mid:]
    l1, l2, out = mid - 1, len(buf) - 1, n
    if not buf:
        return
    while True:
        if comp(buf[l2], v[l1]):
            out -= 1
            v[out] = v[l1]
            if l1 == 0:
                v[out - l2 - 1:out] = buf[:l2 + 1]
                return
            l1 -= 1
        else:
            out -= 1
            v[out] = buf[l2]
            if l2 == 0:
                return
            l2 -= 1


def has_ties(rows: torch.Tensor) -> torch.Tensor:
    """[rows] bool: the row holds two values the comparator cannot order (equal numbers,
    -0 and +0, or two NaNs)."""
    s = torch.sort(rows, dim=1).values
    nan = torch.isnan(rows).sum(1) if rows.is_floating_point() else torch.zeros(len(rows))
    return (s[:, 1:] == s[:, :-1]).any(1) | (nan > 1)


def select_rows(rows: torch.Tensor, k: int, largest: bool, sort_k: bool):
    """phi's FullTopK (sort_k) / getKthvalue selection on each [rows, n] row: the first k
    (value, index) pairs the pair list holds afterwards: their [rows, k] indices."""
    n = rows.shape[1]
    comp = _less(largest)
    indices = []
    for row in rows.tolist():
        v = [(x, j) for j, x in enumerate(row)]
        if k * 64 < n:
            partial_sort(v, 0, k, n, comp)
        else:
            nth_element(v, k - 1, comp)
            if sort_k:
                sort(v, 0, k - 1, comp)  # phi sorts the first k - 1 (the k-th is in place)
        indices.append([p[1] for p in v[:k]])
    return torch.tensor(indices, dtype=torch.int64, device=rows.device).reshape(len(rows), k)



class _Node:
    __slots__ = ("key", "left", "right", "parent", "red")

    def __init__(self, key, parent):
        self.key, self.left, self.right, self.parent, self.red = key, None, None, parent, True


def _rotate(root, x, left: bool):
    """_Rb_tree_rotate_left (left) / _right: returns the new root."""
    y = x.right if left else x.left
    inner = y.left if left else y.right
    if left:
        x.right = inner
    else:
        x.left = inner
    if inner is not None:
        inner.parent = x
    y.parent = x.parent
    if x is root:
        root = y
    elif x is x.parent.left:
        x.parent.left = y
    else:
        x.parent.right = y
    if left:
        y.left = x
    else:
        y.right = x
    x.parent = y
    return root


def set_order(values) -> list:
    """The keys of a libstdc++ std::set<T> built by inserting `values` in order, in the set's
    order.  With `<` a NaN is equivalent to every number, so where NaNs sit in the red-black
    tree decides which later values count as present: phi's std::set-based unique (Paddle
    3.0.0) gives [nan] for [nan, 1, -0, 0, nan, 1]."""
    root = None
    for k in values:
        x, y, comp = root, None, True
        while x is not None:
            y, comp = x, k < x.key
            x = x.left if comp else x.right
        j = y
        if comp:
            if y is not None and y is not _leftmost(root):
                j = _predecessor(y)
            else:
                j = None
        if j is not None and not j.key < k:
            continue  # an equivalent key is there already
        node = _Node(k, y)
        if y is None:
            root = node
        elif k < y.key:
            y.left = node
        else:
            y.right = node
        root = _rebalance(root, node)
    out, stack, x = [], [], root
    while stack or x is not None:  # in-order walk
        while x is not None:
            stack.append(x)
            x = x.left
        x = stack.pop()
        out.append(x.key)
        x = x.right
    return out


def _leftmost(x):
    while x.left is not None:
        x = x.left
    return x


def _predecessor(x):
    if x.left is not None:
        x = x.left
        while x.right is not None:
            x = x.right
        return x
    while x.parent is not None and x is x.parent.left:
        x = x.parent
    return x.parent


def _rebalance(root, x):
    """_Rb_tree_insert_and_rebalance's recolouring and rotations."""
    while x is not root and x.parent.red:
        xpp = x.parent.parent
        left = x.parent is xpp.left
        y = xpp.right if left else xpp.left
        if y is not None and y.red:
            x.parent.red = y.red = False
            xpp.red = True
            x = xpp
            continue
        if x is (x.parent.right if left else x.parent.left):
            x = x.parent
            root = _rotate(root, x, left)
        x.parent.red = False
        xpp.red = True
        root = _rotate(root, xpp, not left)
    root.red = False
    return root
