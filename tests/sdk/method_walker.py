"""A walk over every Tensor method callable without arguments, for the dtype tests: on a tensor
of the dtype under test each either gives what a reference gives or raises naming the dtype."""

from __future__ import annotations

from typing import Any, Callable

import sdk

# Methods whose results differ by nature between two tensors (addresses, memory never
# written, random draws, type names) or that change the tensor's autograd state.
UNCOMPARABLE = {"data_ptr", "const_data_ptr", "new_empty", "resize_", "type", "requires_grad_", "backward",
                "retain_grad", "cuda", "untyped_storage", "storage",
                "element_size", "nbytes", "itemsize"}  # fmt: skip
RANDOM = ("random_", "uniform_", "normal_", "exponential_", "geometric_", "cauchy_",
          "log_normal_", "bernoulli")  # fmt: skip


def walk_methods(
    make: Callable[[], Any],
    reference: Callable[[str], Any],
    compare: Callable[[str, Any, Any], None],
    dtype_name: str,
    skip: frozenset = frozenset(),
) -> int:
    """For each public Tensor method (but those above and `skip`), on a fresh `make()`: when
    `reference(name)` gives a value (the method takes no arguments), the method's result is
    checked by `compare(name, got, want)`, or its error must name `dtype_name`. Returns how
    many raised."""
    named = 0
    for name in sorted(n for n in dir(sdk.Tensor) if not n.startswith("_")):
        if name in UNCOMPARABLE or name in skip or name.startswith(RANDOM):
            continue
        x = make()
        try:
            method = getattr(x, name)
        except Exception:  # properties that need more dims (mT of 1-d): not a method here
            continue
        if not callable(method):
            continue
        try:
            want = reference(name)
        except Exception:
            continue  # needs arguments
        try:
            got = method()
        except Exception as e:  # noqa: BLE001
            assert dtype_name in str(e), f"{name}: {type(e).__name__}: {e}"
            named += 1
            continue
        compare(name, got, want)
    return named
