"""The backward engine: dependency-counted topological execution of the graph, no recursion.

One pass counts, for every node reachable from the roots, how many edges point at it;
a node runs once all of them have delivered their gradient (summed in a per-call
buffer). Formulas run with grad mode off unless ``create_graph`` is set.
"""

from __future__ import annotations

from typing import Any, Sequence

import sdk
from sdk import _C

from .graph import AccumulateGrad, _accumulator, _edge

_TensorBase = _C.TensorBase

_SECOND_TIME = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


def _describe(t: Any) -> str:
    return f"{str(t.dtype).rsplit('.', 1)[-1]}{list(t.shape)}"


def _check_versions(node: Any) -> None:
    d = node._d
    vs = node.versions
    inputs = node.inputs
    for k, i in enumerate(d.saves):
        v = vs[k]
        if v >= 0 and inputs[i]._version != v:
            _raise_version(d, "input", inputs[i], v)
    if len(vs) > len(d.saves):
        v = vs[-1]
        r = node.result
        if r._version != v:
            _raise_version(d, "result", r, v)


def _raise_version(d: Any, what: str, t: Any, expected: int) -> None:
    op = d.name[: -len("Backward0")] if d.name.endswith("Backward0") else d.name
    raise RuntimeError(
        "one of the tensors needed for gradient computation has been modified by an inplace "
        f"operation: saved {what} of '{_op_name(d)}' ({_describe(t)}) is at version "
        f"{t._version}; expected version {expected} instead. Hint: the backward node is "
        f"{op}Backward0; avoid modifying that tensor in place (or clone() it first)."
    )


def _op_name(d: Any) -> str:
    return getattr(d, "op", d.name)


def _run_pre_hooks(node: Any, buf: Any) -> Any:
    multi = node._nout is not None
    for nr, fn in list(node._pre_hooks.values()):
        if nr == -1:  # node prehook: sees and may replace all output grads
            grads = tuple(buf) if multi else (buf,)
            res = fn(grads)
            if res is not None:
                buf = list(res) if multi else res[0]
        elif multi:
            if buf[nr] is not None:
                res = fn(buf[nr])
                if res is not None:
                    buf[nr] = res
        elif buf is not None:
            res = fn(buf)
            if res is not None:
                buf = res
    return buf


def _run_retains(node: Any, buf: Any) -> None:
    for nr, ref in node._retains:
        t = ref()
        if t is None:
            continue
        g = buf[nr] if node._nout is not None else buf
        if g is None:
            continue
        old = t.grad
        t.grad = g.clone() if old is None else old + g


def _accumulate(var: Any, g: Any, create_graph: bool) -> None:
    m = var._ag
    if m is not None and m.hooks:
        for fn in list(m.hooks.values()):
            res = fn(g)
            if res is not None:
                g = res
    old = var.grad
    if old is None:
        if g.shape != var.shape:
            raise RuntimeError(
                f"autograd: gradient of shape {list(g.shape)} computed for a leaf of shape "
                f"{list(var.shape)} (a derivative formula returned a wrong shape)"
            )
        if g.dtype != var.dtype:
            g = g.to(var.dtype)
        # A gradient may alias another leaf's or the caller's tensor (add passes g through
        # unchanged): .grad gets its own storage so later in-place updates stay private.
        var.grad = g if create_graph else g.clone()
    elif create_graph:
        var.grad = old + g
    else:
        old.add_(g)


def execute(
    roots: Sequence[tuple],
    root_grads: Sequence[Any],
    keep_graph: bool,
    create_graph: bool,
    capture: dict | None = None,
    results: list | None = None,
) -> None:
    """Run backward from `roots` ((node, output_nr) edges) seeded with `root_grads`.

    With `capture` ({node: [(output_nr, slot), ...]}) gradients reaching those edges are
    stored into ``results[slot]`` instead of being accumulated into leaves' ``.grad``.
    A node runs once every edge into it has delivered (dependency counts), so each
    formula sees the sum of its output's gradients.
    """
    deps = _dependencies(roots)
    needed = _needed_nodes(roots, capture) if capture is not None else None
    buffers: dict = {}
    for (node, nr), g in zip(roots, root_grads):
        _add_to(buffers, node, nr, g)
    ready = []
    for node, _ in roots:
        if deps[node] == 0 and node not in ready:
            ready.append(node)

    prev = _C._set_grad_enabled(create_graph)
    try:
        while ready:
            node = ready.pop()
            buf = buffers.pop(node, None)
            if type(node) is AccumulateGrad:
                _reach_leaf(node, buf, create_graph, capture, results)
                continue
            grads = _run_node(node, buf, needed, keep_graph, create_graph, capture, results)
            _send(node.next_functions, grads, buffers, deps, ready)
    finally:
        _C._set_grad_enabled(prev)


def _dependencies(roots: Sequence[tuple]) -> dict:
    """How many edges lead into each node reachable from `roots` (iterative DFS)."""
    deps: dict = {}
    stack = []
    for node, _ in roots:
        if node not in deps:
            deps[node] = 0
            stack.append(node)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            c = deps.get(nxt)
            if c is None:
                deps[nxt] = 1
                stack.append(nxt)
            else:
                deps[nxt] = c + 1
    return deps


def _reach_leaf(node: Any, buf: Any, create_graph: bool, capture, results) -> None:
    """A leaf's gradient: into ``results`` (after the tensor's hooks) when captured, else
    accumulated into its ``.grad``."""
    if capture is None:
        if buf is not None:
            _accumulate(node.variable, buf, create_graph)
        return
    slots = capture.get(node)
    if slots is None or buf is None:
        return
    m = node.variable._ag
    if m is not None and m.hooks:
        for fn in list(m.hooks.values()):
            res = fn(buf)
            if res is not None:
                buf = res
    for _, slot in slots:
        results[slot] = buf


def _run_node(node, buf, needed, keep_graph: bool, create_graph: bool, capture, results):
    """The gradients `node` sends to its inputs (None when it sends none): its hooks, the
    captured outputs, then its derivative formula (and its graph released unless kept)."""
    if node._pre_hooks is not None:
        buf = _run_pre_hooks(node, buf)
    if node._retains is not None and buf is not None:
        _run_retains(node, buf)
    if capture is not None:
        slots = capture.get(node)
        if slots is not None and buf is not None:
            for nr, slot in slots:
                results[slot] = buf[nr] if node._nout is not None else buf
    if buf is None or (needed is not None and node not in needed):
        return None
    if node._nout is not None and all(b is None for b in buf):
        return None
    if node.inputs is None:
        raise RuntimeError(_SECOND_TIME)
    d = node._d
    if node.versions is not None:
        _check_versions(node)
    if create_graph and d.result is True and node.result is not None:
        grads = _apply_connected(d, node, buf)
    else:
        grads = d.fn(buf, node)
    nf = node.next_functions
    if len(grads) != len(nf):
        raise RuntimeError(
            f"autograd internal error: {d.name} returned {len(grads)} "
            f"gradients for {len(nf)} inputs"
        )
    if node._post_hooks is not None:
        for fn in list(node._post_hooks.values()):
            res = fn(grads, tuple(buf) if node._nout is not None else (buf,))
            if res is not None:
                grads = tuple(res)
    if not keep_graph:
        node._release()
    return grads


def _send(nf, grads, buffers: dict, deps: dict, ready: list) -> None:
    """Add `grads` into the buffers of the next nodes; a node whose every incoming edge has
    now delivered becomes ready (also when no gradient came: it still counts down)."""
    if grads is None:
        grads = (None,) * len(nf)
    for (nxt, nr), g in zip(nf, grads):
        if nxt is None:
            continue
        if g is not None:
            if nxt._nout is None:
                old = buffers.get(nxt)
                buffers[nxt] = g if old is None else old + g
            else:
                _add_to(buffers, nxt, nr, g)
        c = deps[nxt] - 1
        deps[nxt] = c
        if c == 0:
            ready.append(nxt)


def _apply_connected(d: Any, node: Any, buf: Any) -> tuple:
    """Run a formula that reads the op's result with the result reattached to the graph, so
    that create_graph differentiates through it (the saved alias has no history)."""
    saved = node.result
    r = _C._alias(saved)
    r._requires_grad = True
    r.grad_fn = node
    node.result = r
    try:
        return d.fn(buf, node)
    finally:
        node.result = saved


def _add_to(buffers: dict, node: Any, nr: int, g: Any) -> None:
    if node._nout is None:
        old = buffers.get(node)
        buffers[node] = g if old is None else old + g
        return
    lst = buffers.get(node)
    if lst is None:
        lst = buffers[node] = [None] * node._nout
    old = lst[nr]
    lst[nr] = g if old is None else old + g


def _needed_nodes(roots: Sequence[tuple], capture: dict) -> set:
    """Nodes from which a captured edge is reachable (the others need not run)."""
    done: dict = {}
    stack = [(node, False) for node, _ in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            hit = node in capture
            if not hit:
                for nxt, _ in node.next_functions:
                    if nxt is not None and done.get(nxt):
                        hit = True
                        break
            done[node] = hit
            continue
        if node in done:
            continue
        done[node] = False  # provisional; set for real when expanded
        stack.append((node, True))
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in done:
                stack.append((nxt, False))
    return {n for n, hit in done.items() if hit}


# --------------------------------------------------------------------------- public API


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, _TensorBase):
        return (x,)
    return tuple(x)


def _make_roots(outputs: tuple, grad_outputs: Any, what: str) -> tuple[list, list]:
    if grad_outputs is None or isinstance(grad_outputs, _TensorBase):
        grad_outputs = (grad_outputs,) * len(outputs) if grad_outputs is None else (grad_outputs,)
    grad_outputs = tuple(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"{what}: got {len(grad_outputs)} gradients for {len(outputs)} tensors")
    roots, grads = [], []
    for i, (t, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(t, _TensorBase):
            raise TypeError(f"{what}: expected a Tensor at position {i}, got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        if g is None:
            if t.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (output {i} has "
                    f"shape {list(t.shape)}); pass a gradient"
                )
            g = sdk.ones_like(t)
        elif not isinstance(g, _TensorBase):
            g = sdk.tensor(g, dtype=t.dtype)
        elif g.shape != t.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {list(g.shape)} and "
                f"output[{i}] has a shape of {list(t.shape)}."
            )
        roots.append(_edge(t))
        grads.append(g)
    return roots, grads


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """Accumulate d(tensors)/d(leaf) into ``leaf.grad`` for every leaf of the graph.

    With ``inputs`` only those tensors' ``.grad`` are accumulated.
    """
    tensors = _as_tuple(tensors)
    if retain_graph is None:
        retain_graph = create_graph
    roots, grads = _make_roots(tensors, grad_tensors, "backward")
    if inputs is not None:
        inputs = _as_tuple(inputs)
        res = _grad_impl(roots, grads, inputs, retain_graph, create_graph, True)
        for t, g in zip(inputs, res):
            if g is None:
                continue
            if t.grad_fn is None:
                _accumulate_plain(t, g, create_graph)
            else:
                old = t.grad
                t.grad = g if old is None else old + g
        return
    execute(roots, grads, retain_graph, create_graph)


def _accumulate_plain(t: Any, g: Any, create_graph: bool) -> None:
    old = t.grad
    if old is None:
        t.grad = g if create_graph else g.clone()
    elif create_graph:
        t.grad = old + g
    else:
        old.add_(g)


def _grad_impl(roots, grads, inputs, retain_graph, create_graph, allow_unused) -> list:
    capture: dict = {}
    for slot, x in enumerate(inputs):
        if not isinstance(x, _TensorBase):
            raise TypeError(f"autograd.grad: inputs[{slot}] is not a Tensor")
        if not x._requires_grad:
            raise RuntimeError(
                f"One of the differentiated Tensors (inputs[{slot}]) does not require grad"
            )
        node, nr = _edge(x) if x.grad_fn is not None else (_accumulator(x), 0)
        capture.setdefault(node, []).append((nr, slot))
    results: list = [None] * len(inputs)
    execute(roots, grads, retain_graph, create_graph, capture, results)
    if not allow_unused:
        for slot, r in enumerate(results):
            if r is None:
                raise RuntimeError(
                    f"One of the differentiated Tensors (inputs[{slot}]) appears to not have "
                    "been used in the graph. Set allow_unused=True if this is the desired behavior."
                )
    return results


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple:
    """Gradients of `outputs` with respect to `inputs` (returned, not accumulated)."""
    single = isinstance(inputs, _TensorBase)
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if retain_graph is None:
        retain_graph = create_graph
    if allow_unused is None:
        allow_unused = materialize_grads
    roots, grads = _make_roots(outputs, grad_outputs, "autograd.grad")
    res = _grad_impl(roots, grads, inputs, retain_graph, create_graph, allow_unused)
    if materialize_grads:
        res = [sdk.zeros_like(x) if r is None else r for x, r in zip(inputs, res)]
    del single
    return tuple(res)
