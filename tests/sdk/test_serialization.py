"""sdk.save / sdk.load: round trips of nested structures and every dtype; pickles are refused."""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import sdk
from sdk import nn

DTYPES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]


def _sample(name, shape=(2, 3)):
    rng = np.random.default_rng(0)
    dt = getattr(sdk, "bool" if name == "bool" else name)
    if name == "bool":
        return sdk.tensor(rng.integers(0, 2, size=shape).astype(bool))
    if name in ("float16", "bfloat16", "float32", "float64"):
        return sdk.tensor(rng.standard_normal(shape) * 100).to(dt)
    return sdk.tensor(rng.integers(-100 if name != "uint8" else 0, 100, size=shape)).to(dt)


def _values(t):
    if t.dtype == sdk.bfloat16:
        t = t.to(sdk.float32)
    return t.detach().numpy()


@pytest.mark.parametrize("name", DTYPES)
def test_round_trip_every_dtype(tmp_path, name):
    t = _sample(name)
    path = tmp_path / "t.sdk"
    sdk.save(t, path)
    back = sdk.load(path)
    assert back.dtype == t.dtype and tuple(back.shape) == tuple(t.shape)
    np.testing.assert_array_equal(_values(back), _values(t))


def test_round_trip_nested_structure(tmp_path):
    obj = {
        "weights": [sdk.randn(3, 2), sdk.zeros(0)],
        "meta": {
            "step": 7,
            "lr": 0.5,
            "name": "run",
            "flag": True,
            "none": None,
            "inf": float("inf"),
        },
        "pair": (sdk.arange(5), sdk.tensor(3.5)),
        1: "int key",
        "ordered": OrderedDict([("b", sdk.ones(1)), ("a", sdk.ones(2))]),
    }
    path = tmp_path / "nested.sdk"
    sdk.save(obj, str(path))
    back = sdk.load(str(path))
    assert set(back) == set(obj)
    np.testing.assert_array_equal(back["weights"][0].numpy(), obj["weights"][0].numpy())
    assert tuple(back["weights"][1].shape) == (0,)
    assert back["meta"] == obj["meta"]
    assert isinstance(back["pair"], tuple) and back["pair"][1].ndim == 0
    assert float(back["pair"][1].item()) == 3.5
    assert back[1] == "int key"
    assert isinstance(back["ordered"], OrderedDict) and list(back["ordered"]) == ["b", "a"]


def test_non_contiguous_and_requires_grad(tmp_path):
    base = sdk.randn(3, 4)
    t = base.t()
    p = nn.Parameter(sdk.randn(2))
    sdk.save({"t": t, "p": p}, tmp_path / "x.sdk")
    back = sdk.load(tmp_path / "x.sdk")
    np.testing.assert_array_equal(back["t"].numpy(), t.numpy())
    assert isinstance(back["p"], nn.Parameter) and back["p"].requires_grad


def test_state_dict_round_trip_through_file(tmp_path):
    a = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    b = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
    opt = sdk.optim.Adam(a.parameters(), lr=0.1)
    a(sdk.randn(2, 3)).sum().backward()
    opt.step()
    sdk.save({"model": a.state_dict(), "optim": opt.state_dict()}, tmp_path / "ckpt.sdk")
    ckpt = sdk.load(tmp_path / "ckpt.sdk")
    b.load_state_dict(ckpt["model"])
    x = sdk.randn(5, 3)
    sdk.testing.assert_close(a(x), b(x))
    opt2 = sdk.optim.Adam(b.parameters(), lr=0.1)
    opt2.load_state_dict(ckpt["optim"])
    assert opt2.state_dict()["state"][0]["step"] == 1


def test_file_is_npz_compatible_and_documented(tmp_path):
    path = tmp_path / "f.sdk"
    sdk.save({"w": sdk.ones(2, 2), "h": sdk.ones(3).to(sdk.bfloat16)}, path)
    with np.load(path, allow_pickle=False) as npz:
        manifest = json.loads(npz.zip.read("manifest.json"))
        assert manifest["format"] == "sdk.save" and manifest["version"] == 1
        items = dict(manifest["root"]["items"])
        assert items["h"]["dtype"] == "bfloat16"
        assert npz[items["h"]["key"]].dtype == np.uint16
        np.testing.assert_array_equal(npz[items["w"]["key"]], np.ones((2, 2), dtype=np.float32))


def test_file_objects_work():
    buf = io.BytesIO()
    sdk.save([sdk.ones(2)], buf)
    buf.seek(0)
    assert sdk.load(buf)[0].tolist() == [1.0, 1.0]


class _Evil:
    def __reduce__(self):
        return (print, ("pwned",))


def test_plain_pickle_is_refused(tmp_path):
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(_Evil()))
    with pytest.raises(ValueError, match="not an sdk.save archive"):
        sdk.load(path)


def test_pickled_member_in_archive_is_refused(tmp_path, capsys):
    path = tmp_path / "evil.sdk"
    buf = io.BytesIO()
    np.save(buf, np.array([_Evil()], dtype=object), allow_pickle=True)
    manifest = {
        "format": "sdk.save",
        "version": 1,
        "root": {"type": "tensor", "key": "t0", "dtype": "float32", "shape": [1]},
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        zf.writestr("t0.npy", buf.getvalue())
    with pytest.raises(ValueError, match="pickle"):
        sdk.load(path)
    assert "pwned" not in capsys.readouterr().out


def test_unsupported_objects_are_refused(tmp_path):
    with pytest.raises(TypeError, match="cannot save an object of type _Evil"):
        sdk.save({"x": _Evil()}, tmp_path / "x.sdk")
