"""Real user workflows: train / save / resume in a new process, numpy in and out, DLPack with
torch both ways (shared memory), load_inline built in one process and reused in another."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest

import sdk
from tests.qa.conftest import run_python

TRAIN = """
import json, sys
import numpy as np
import sdk
import sdk.nn as nn
import sdk.nn.functional as F
from sdk import optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)
        self.register_buffer("steps", sdk.zeros(()))

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 4)).astype(np.float32)
    y = (X[:, 0] + X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 1)
    return sdk.from_numpy(X), sdk.from_numpy(y)


def train(model, opt, epochs):
    X, y = data()
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    model.train()
    for _ in range(epochs):
        opt.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        opt.step()
        model.steps += 1
        losses.append(loss.item())
    return losses


def make(kind):
    sdk.manual_seed(0)
    model = Net()
    opt = (optim.Adam(model.parameters(), lr=1e-2) if kind == "adam"
           else optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    return model, opt
"""


@pytest.mark.parametrize("kind", ["adam", "sgd"])
def test_train_save_resume_in_new_process(tmp_path, kind):
    ckpt = tmp_path / "ckpt.pt"
    lib = tmp_path / "trainlib.py"
    lib.write_text(TRAIN)
    first = f"""
        import sys; sys.path.insert(0, {str(tmp_path)!r})
        from trainlib import *
        model, opt = make({kind!r})
        a = train(model, opt, 20)
        sdk.save({{"model": model.state_dict(), "opt": opt.state_dict(), "epoch": 20,
                   "losses": a}}, {str(ckpt)!r})
        b = train(model, opt, 10)  # what resuming must reproduce
        print(json.dumps({{"a": a, "b": b}}))
    """
    r = run_python(first)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["a"][-1] < out["a"][0] * 0.8, "the model did not learn"
    second = f"""
        import sys; sys.path.insert(0, {str(tmp_path)!r})
        from trainlib import *
        model, opt = make({kind!r})
        ck = sdk.load({str(ckpt)!r})
        assert ck["epoch"] == 20 and len(ck["losses"]) == 20
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        assert float(model.steps) == 20.0
        print(json.dumps(train(model, opt, 10)))
    """
    r = run_python(second)
    assert r.returncode == 0, r.stderr[-3000:]
    resumed = json.loads(r.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(resumed, out["b"], rtol=1e-6, atol=1e-7)


def test_state_dict_roundtrip_types(tmp_path):
    obj = {
        "t": sdk.randn(3, 4).t(),  # non-contiguous
        "i": sdk.arange(5, dtype=sdk.int32),
        "b": sdk.tensor([True, False]),
        "h": sdk.randn(2).half(),
        "bf": sdk.randn(2).bfloat16(),
        "z": sdk.tensor(3.5, dtype=sdk.float64),
        "e": sdk.empty(0, 3),
        "nested": [1, 2.5, "x", None, (sdk.ones(2),)],
    }
    obj["alias"] = obj["i"]
    sdk.save(obj, tmp_path / "o.pt")
    back = sdk.load(tmp_path / "o.pt")
    for k in ("t", "i", "b", "h", "bf", "z", "e"):
        assert back[k].dtype == obj[k].dtype and back[k].shape == obj[k].shape, k
        assert bool((back[k].float() == obj[k].float()).all()), k
    assert back["nested"][:4] == [1, 2.5, "x", None]
    assert isinstance(back["nested"][4], tuple)


def test_numpy_in_and_out_shares_memory():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = sdk.from_numpy(a)
    t[0, 0] = 42
    assert a[0, 0] == 42
    n = t.numpy()
    n[1, 1] = -1
    assert t[1, 1].item() == -1
    assert np.shares_memory(np.asarray(t), a)
    s = sdk.as_tensor(a)
    assert s.data_ptr() == t.data_ptr()
    c = sdk.tensor(a)  # copies, like torch.tensor
    c[2, 2] = 7
    assert a[2, 2] != 7
    # mixing: numpy operands and ufuncs
    np.testing.assert_allclose((t + np.ones(4, dtype=np.float32)).numpy(), a + 1)
    np.testing.assert_allclose(np.exp(t.numpy()), sdk.exp(t).numpy(), rtol=1e-6)
    assert (np.float32(2.0) * t).dtype == sdk.float32
    # numpy views with odd strides
    v = sdk.from_numpy(a[:, ::2])
    assert tuple(v.stride()) == (4, 2)
    np.testing.assert_array_equal(v.numpy(), a[:, ::2])
    with pytest.raises((ValueError, TypeError, RuntimeError)):
        sdk.from_numpy(np.ones(3, dtype=np.clongdouble))
    with pytest.raises((TypeError, RuntimeError)):
        t.bfloat16().numpy()  # numpy has no bfloat16 (torch raises TypeError too)


def test_numpy_arrays_into_extension_functions():
    from cpp_extension import load_inline

    src = "sdk::Tensor twice(sdk::Tensor x) { return x * 2; }"
    m = load_inline(name="qa_wf_twice", cpp_sources=[src], functions=["twice"])
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    out = m.twice(a)
    assert isinstance(out, sdk.Tensor)
    np.testing.assert_array_equal(out.numpy(), a * 2)
    np.testing.assert_array_equal(m.twice(a.T).numpy(), a.T * 2)


@pytest.fixture
def torch_mod():
    return pytest.importorskip("torch")


def test_dlpack_with_torch_shares_memory(torch_mod):
    torch = torch_mod
    t = torch.arange(12.0).reshape(3, 4)
    s = sdk.from_dlpack(t)
    assert s.data_ptr() == t.data_ptr()
    s[0, 0] = 100
    assert t[0, 0].item() == 100
    back = torch.from_dlpack(s)
    back[1, 1] = -5
    assert s[1, 1].item() == -5 and t[1, 1].item() == -5
    # strided views both ways
    st = sdk.from_dlpack(t.t())
    assert tuple(st.stride()) == (1, 4)
    tv = torch.from_dlpack(s.t()[::2])
    assert tuple(tv.stride()) == (2, 4)
    assert torch.equal(tv, t.t()[::2])
    # lifetimes: the producer may go away
    x = torch.randn(1000)
    ref = x.sum().item()
    y = sdk.from_dlpack(x)
    del x
    gc.collect()
    assert y.sum().item() == pytest.approx(ref, rel=1e-5)
    a = sdk.randn(1000)
    ref = a.sum().item()
    b = torch.from_dlpack(a)
    del a
    gc.collect()
    assert b.sum().item() == pytest.approx(ref, rel=1e-5)


@pytest.mark.parametrize(
    "dtype",
    ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
     "float64"],
)  # fmt: skip
def test_dlpack_dtypes_roundtrip(torch_mod, dtype):
    torch = torch_mod
    x = (torch.randn(2, 3) * 3).to(getattr(torch, dtype))
    y = sdk.from_dlpack(x)
    assert y.dtype == getattr(sdk, dtype)
    z = torch.from_dlpack(y)
    assert z.dtype == x.dtype and torch.equal(z, x) and z.data_ptr() == x.data_ptr()
    assert sdk.from_dlpack(x[0, 0]).shape == ()  # 0-dim
    assert tuple(torch.from_dlpack(sdk.empty(0, 3, dtype=y.dtype)).shape) == (0, 3)


def test_dlpack_tensors_feed_extension_and_back(torch_mod):
    torch = torch_mod
    from cpp_extension import load_inline

    src = "sdk::Tensor twice(sdk::Tensor x) { return x * 2; }"
    m = load_inline(name="qa_wf_twice", cpp_sources=[src], functions=["twice"])
    t = torch.randn(3, 4)
    out = torch.from_dlpack(m.twice(t))  # a torch tensor goes straight into the extension
    assert torch.allclose(out, t * 2)


def test_load_inline_cache_reused_by_new_process():
    # The default cache (kept between runs: warm runs stay fast); the second process must
    # load what the first built or found, without running a compiler.
    code = """
        import sdk
        from cpp_extension import load_inline, last_load_info
        src = "sdk::Tensor add_one(sdk::Tensor x) { return x + 1; }"
        m = load_inline(name="qa_wf_cache", cpp_sources=[src], functions=["add_one"])
        assert m.add_one(sdk.zeros(2)).tolist() == [1.0, 1.0]
        print("BUILT" if last_load_info()["built"] else "CACHED")
    """
    r1 = run_python(code)
    assert r1.returncode == 0, r1.stderr[-3000:]
    r2 = run_python(code)
    assert r2.returncode == 0, r2.stderr[-3000:]
    assert "CACHED" in r2.stdout
