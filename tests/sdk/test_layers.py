"""The layering of the sdk package (see the top of sdk/__init__.py and docs/DESIGN.md).

The import graph among sdk's modules, counting imports inside functions, is acyclic and
only points down the layers below; an import inside a function is allowed only where
LAZY_IMPORTS says why it must stay lazy; the Tensor class binds its methods by name in its
own body; and every subpackage imports cleanly in a fresh interpreter, in any order.
"""

from __future__ import annotations

import ast
import fnmatch
import inspect
import pathlib

import pytest

import sdk
from tests._imports import imports_of, package_modules
from tests._support import run_python

SDK = pathlib.Path(sdk.__file__).parent

# Lowest first. A module imports only modules of its own layer or of lower ones; inside a
# layer the graph must still be acyclic (that fixes, e.g., the order of the op modules).
LAYERS = [
    ("core", ["sdk._C", "sdk._blas_path"]),
    (
        "base",
        [
            "sdk._dtype",
            "sdk.grad_mode",
            "sdk._finfo",
            "sdk._autograd_link",
            "sdk._settings",
            "sdk.utils.elf",
        ],
    ),  # fmt: skip
    (
        "devices",
        [
            "sdk.cuda",
            "sdk.cuda.*",
            "sdk.amp",
            "sdk.backends",
            "sdk.backends.cuda",
            "sdk.backends.cudnn",
            "sdk.backends.mps",
        ],
    ),
    ("ops", ["sdk._interop", "sdk._ops_*", "sdk._indexing", "sdk._repr", "sdk._tensor_pickle"]),
    ("tensor", ["sdk._tensor", "sdk._tensor_types", "sdk._tensor_state", "sdk._storage"]),
    ("namespace", ["sdk"]),
    ("autograd", ["sdk.autograd", "sdk.autograd.*", "sdk.ops", "sdk.classes", "sdk.testing"]),
    (
        "libraries",
        [
            "sdk.nn",
            "sdk.nn.*",
            "sdk.optim",
            "sdk.optim.*",
            "sdk.utils",
            "sdk.utils.data",
            "sdk.utils.data.*",
            "sdk.utils.hooks",
            "sdk.utils.checkpoint",
            "sdk.jit",
            "sdk._grad_scaler",
            "sdk.library",
            "sdk._op_frameworks",
            "sdk._toplevel",
            "sdk.interop",
            "sdk.interop.*",
            "sdk.linalg",
            "sdk.version",
            "sdk.__config__",
        ],
    ),  # fmt: skip
    ("serialization", ["sdk.serialization"]),
]

# The only imports of sdk modules inside functions: each imports a LOWER layer (or its own)
# and is lazy for its cost. Each line also says why, in a "# lazy:" comment.
LAZY_IMPORTS = {
    ("sdk._interop", "sdk.cuda"): "keeps import sdk fast (~1 ms); needed on CUDA paths only",
    ("sdk._ops_creation", "sdk.cuda"): "keeps import sdk fast; needed for device= only",
    ("sdk._tensor", "sdk.cuda"): "keeps import sdk fast; needed by to(device), record_stream",
    ("sdk._tensor", "sdk._repr"): "keeps import sdk fast (~1 ms); needed by repr() only",
    ("sdk._tensor", "sdk._tensor_pickle"): "it imports pickle (~4 ms); needed by pickling only",
    ("sdk.library", "sdk.autograd"): "sdk.autograd imports numpy (~100 ms)",
    ("sdk.nn.module", "sdk.nn._hooks"): "sdk.nn._hooks imports sdk.autograd",
    ("sdk.nn.module", "sdk.utils.hooks"): "sdk.utils loads sdk.utils.data",
    ("sdk.nn.parameter", "sdk.autograd.graph"): "sdk.autograd imports numpy",
    ("sdk.serialization", "sdk.nn.parameter"): "loads all of sdk.nn, for checkpoints only",
}

# Loads by name (importlib.import_module), which no import statement shows. Only the
# namespace does it: its PEP 562 __getattr__ loads the subpackages that build on it (and,
# registered in sdk._autograd_link, sdk.autograd when a lower layer first needs it), and
# sdk._repr for set_printoptions (kept out of import sdk, as Tensor.__repr__ keeps it), and
# sdk.amp for torch's top-level autocast names (sdk.autocast, sdk.is_autocast_enabled, ...),
# and sdk._toplevel for torch's top-level nn and linalg names (sdk.conv2d, sdk.svd, ...).
# sdk.utils loads its own subpackages on first use (so that utils.elf stays light).
BY_NAME = {
    "sdk": ["sdk.{name}", "sdk.serialization", "sdk._repr", "sdk.amp", "sdk._toplevel"],
    "sdk.utils": ["sdk.utils.{name}"],
    # GradScaler computes with tensors, a layer above sdk.amp's
    "sdk.amp": ["sdk._grad_scaler"],
    "sdk.cuda.amp": ["sdk._grad_scaler"],
}


MODULES = package_modules(SDK, skip_folder="csrc")
KNOWN = set(MODULES) | {"sdk._C"}


def _imports(mod: str, path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(imported sdk module, line, inside a function) for every import in `mod`."""
    return imports_of(mod, path, KNOWN, "sdk")


def _layer(mod: str) -> int:
    hits = [i for i, (_, pats) in enumerate(LAYERS) for p in pats if fnmatch.fnmatch(mod, p)]
    assert len(set(hits)) == 1, f"{mod}: put it in exactly one of LAYERS (found {hits})"
    return hits[0]


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_has_a_layer():
    for m in KNOWN:
        _layer(m)


def test_imports_point_down_the_layers():
    bad = [
        f"{m}:{line} imports {t} ({LAYERS[_layer(m)][0]} -> {LAYERS[_layer(t)][0]})"
        for m, edges in GRAPH.items()
        for t, line, _ in edges
        if _layer(t) > _layer(m)
    ]
    assert not bad, "imports of a higher layer:\n" + "\n".join(bad)


def test_import_graph_is_acyclic():
    edges = {m: sorted({t for t, _, _ in e if t != m}) for m, e in GRAPH.items()}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for t in edges.get(m, ()):
            if state.get(t) == 1:
                cycles.append(" -> ".join(path[path.index(t) :] + [t]))
            elif t not in state:
                visit(t)
        path.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles among sdk modules:\n" + "\n".join(cycles)


def test_function_level_imports_are_the_listed_lazy_ones():
    found = {}
    for m, edges in GRAPH.items():
        for t, line, inner in edges:
            if inner:
                found.setdefault((m, t), []).append(line)
    assert set(found) == set(LAZY_IMPORTS), (
        f"unlisted: {sorted(set(found) - set(LAZY_IMPORTS))}; "
        f"gone (drop them from LAZY_IMPORTS): {sorted(set(LAZY_IMPORTS) - set(found))}"
    )
    for (m, _), lines in found.items():
        text = MODULES[m].read_text().splitlines()
        for line in lines:
            assert "# lazy:" in text[line - 1], f"{m}:{line}: say why it is lazy (# lazy: ...)"


def test_loads_by_name_are_the_listed_ones():
    found: dict[str, list[str]] = {}
    for m, p in MODULES.items():
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.Call) and node.args:
                f = node.func
                name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
                arg = ast.unparse(node.args[0])
                if name in ("import_module", "__import__") and "sdk" in arg:
                    found.setdefault(m, []).append(arg.strip("f'\""))
    assert {m: sorted(v) for m, v in found.items()} == {m: sorted(v) for m, v in BY_NAME.items()}


# ------------------------------------------------------------------------------ Tensor


def _methods() -> dict[str, object]:
    return {n: inspect.getattr_static(sdk.Tensor, n) for n in dir(sdk.Tensor) if n[0] != "_"}


def test_public_tensor_methods_resolve_to_callables():
    t = sdk.ones(2)
    methods = [n for n, a in _methods().items() if not inspect.isdatadescriptor(a)]
    assert len(methods) > 300
    for name in methods:
        assert callable(getattr(t, name)), name


def test_tensor_methods_are_bound_in_the_class_body():
    """Grepping a method's name in sdk/_tensor.py lands on the line that binds it; the ops of
    the C ABI's op tables are the exception: Tensor inherits them from _TableOps, made from the
    tables (grep c_api.h's SDK_UNARY_OPS for those; tests/sdk/test_op_tables.py checks them)."""
    text = (SDK / "_tensor.py").read_text()
    cls = next(
        n for n in ast.parse(text).body if isinstance(n, ast.ClassDef) and n.name == "Tensor"
    )
    bound = set()
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(node.name)
        elif isinstance(node, ast.Assign):
            bound.update(t.id for t in node.targets if isinstance(t, ast.Name))
    assert "setattr(" not in text
    own = {n for n in vars(sdk.Tensor) if not (n.startswith("__") and n.endswith("__"))}
    own |= {"__dlpack__", "__dlpack_device__"} & set(vars(sdk.Tensor))
    assert own <= bound | {"__slots__", "__array_priority__"}, sorted(own - bound)


def test_table_ops_are_methods_and_match_the_namespace():
    from sdk import _C

    for name in [*_C.UNARY_OPS, *_C.BINARY_OPS]:
        assert callable(getattr(sdk.Tensor, name)), name
    for name, attr in vars(sdk.Tensor).items():
        qual = getattr(attr, "__qualname__", "")
        # (sdk._AS_FUNCTIONS wrap the method with a check of their first argument)
        if (
            inspect.isfunction(attr)
            and not qual.startswith("Tensor.")
            and hasattr(sdk, name)
            and name not in sdk._AS_FUNCTIONS
        ):
            assert getattr(sdk, name) is attr, f"Tensor.{name} is not sdk.{name}"


# ------------------------------------------------------------------------------ import order


@pytest.mark.parametrize(
    "code",
    [
        "import sdk.nn",
        "import sdk.optim",
        "import sdk.utils.data",
        "import sdk.autograd",
        "import sdk.cuda",
        "import sdk.library",
        "import sdk.serialization",
        "import sdk.testing",
        "import sdk._tensor",
        "import sdk.nn.functional, sdk.autograd.graph",
        "import sdk.optim, sdk.nn",
        "from sdk.autograd import derivatives_struct",
        "from sdk.utils.data import worker",
    ],
)
def test_subpackages_import_in_a_fresh_interpreter(code):
    check = "import sdk; x = sdk.ones(2, requires_grad=True); (x * x).sum().backward()"
    r = run_python(f"{code}; {check}")
    assert r.returncode == 0, r.stderr


def test_import_sdk_stays_light():
    code = (
        "import sys, sdk; heavy = [m for m in ('numpy', 'sdk.autograd', 'sdk.nn', 'sdk.optim',"
        " 'sdk.utils', 'sdk.serialization', 'sdk.library') if m in sys.modules]; print(heavy)"
    )
    r = run_python(code)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr


def test_autograd_installs_itself_below_and_loads_on_first_need():
    """import sdk leaves autograd unloaded; the first backward loads it through the link the
    namespace registered, and autograd installed itself there."""
    code = (
        "import sys, sdk\n"
        "assert 'sdk.autograd' not in sys.modules\n"
        "assert sdk._autograd_link._autograd is None\n"
        "x = sdk.ones(2, requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "assert sdk._autograd_link._autograd is sys.modules['sdk.autograd']\n"
        "print(x.grad.tolist())\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[2.0, 2.0]"
