"""sdk.bernoulli, sdk.normal, sdk.multinomial (and the Tensor methods): shapes, dtypes,
reproducibility under a seed or a generator, the drawn frequencies, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import sdk


def test_bernoulli_frequency_dtype_and_seed():
    p = sdk.tensor(np.linspace(0, 1, 5).repeat(20000).reshape(5, -1))
    sdk.manual_seed(1)
    a = sdk.bernoulli(p)
    sdk.manual_seed(1)
    b = p.bernoulli()
    assert a.dtype == p.dtype and a.shape == p.shape
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    freq = a.numpy().mean(1)
    np.testing.assert_allclose(freq, np.linspace(0, 1, 5), atol=0.015)
    assert freq[0] == 0 and freq[-1] == 1  # p = 0 and p = 1 are exact
    x = sdk.zeros(40000, dtype=sdk.float64)
    assert x.bernoulli_(0.25) is x and abs(x.mean().item() - 0.25) < 0.01
    assert set(np.unique(x.numpy())) <= {0.0, 1.0}


def test_bernoulli_refuses_bad_probabilities():
    with pytest.raises(ValueError, match=r"probabilities must be in \[0, 1\]"):
        sdk.bernoulli(sdk.tensor([0.5, 1.5]))
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        sdk.bernoulli(sdk.tensor([float("nan")]))
    with pytest.raises(TypeError, match="floating point"):
        sdk.bernoulli(sdk.tensor([0, 1]))
    with pytest.raises(TypeError, match="argument 'input' must be Tensor"):
        sdk.bernoulli([0.5])


def test_normal_overloads_and_moments():
    g = sdk.Generator().manual_seed(3)
    z = sdk.normal(2.0, 3.0, (200000,), generator=g)
    assert z.shape == (200000,) and z.dtype == sdk.float32
    assert abs(z.mean().item() - 2.0) < 0.03 and abs(z.std().item() - 3.0) < 0.03
    m = sdk.normal(sdk.zeros(3, 1, dtype=sdk.float64), sdk.full((4,), 2.0, dtype=sdk.float64))
    assert m.shape == (3, 4) and m.dtype == sdk.float64
    assert sdk.normal(sdk.ones(5), 0.0).tolist() == [1.0] * 5  # std 0: the mean itself
    g1, g2 = sdk.Generator().manual_seed(9), sdk.Generator().manual_seed(9)
    np.testing.assert_array_equal(
        sdk.normal(sdk.zeros(6), 1.0, generator=g1).numpy(),
        sdk.normal(sdk.zeros(6), 1.0, generator=g2).numpy(),
    )
    mean = sdk.zeros(4, requires_grad=True)
    sdk.normal(mean, 1.0).sum().backward()  # the reparameterized sample passes the gradient
    assert mean.grad.tolist() == [1.0] * 4


def test_normal_refuses_bad_arguments():
    with pytest.raises(ValueError, match="std must be >= 0"):
        sdk.normal(0.0, -1.0, (2,))
    with pytest.raises(ValueError, match="std must be >= 0"):
        sdk.normal(sdk.zeros(2), sdk.tensor([1.0, -1.0]))
    with pytest.raises(TypeError, match="give mean or std as a tensor, or a size"):
        sdk.normal(0.0, 1.0)
    with pytest.raises(TypeError, match="argument 'mean' must be Tensor or float"):
        sdk.normal("0", 1.0, (2,))
    with pytest.raises(TypeError, match="argument 'generator' must be Generator"):
        sdk.normal(0.0, 1.0, (2,), generator=7)


def test_multinomial_with_replacement_follows_the_weights():
    w = sdk.tensor([1.0, 0.0, 6.0, 3.0])
    sdk.manual_seed(4)
    s = sdk.multinomial(w, 200000, replacement=True)
    assert s.dtype == sdk.int64 and s.shape == (200000,)
    freq = np.bincount(s.numpy(), minlength=4) / 200000
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.01)
    assert freq[1] == 0  # a zero weight is never drawn
    rows = sdk.tensor([[1.0, 1.0], [0.0, 5.0]])
    r = rows.multinomial(10, replacement=True)
    assert r.shape == (2, 10) and set(r[1].tolist()) == {1}


def test_multinomial_without_replacement_draws_distinct_and_weighted():
    w = sdk.tensor([[5.0, 1.0, 0.0, 2.0], [1.0, 1.0, 1.0, 1.0]])
    s = sdk.multinomial(w, 3)
    for row, weights in zip(s.tolist(), w.tolist()):
        assert len(set(row)) == 3 and all(weights[i] > 0 for i in row)
    first = np.bincount([sdk.multinomial(w[0], 1).item() for _ in range(6000)], minlength=4)
    np.testing.assert_allclose(first / 6000, [5 / 8, 1 / 8, 0, 2 / 8], atol=0.025)
    g1, g2 = sdk.Generator().manual_seed(2), sdk.Generator().manual_seed(2)
    assert (
        sdk.multinomial(w, 2, generator=g1).tolist() == sdk.multinomial(w, 2, generator=g2).tolist()
    )


@pytest.mark.parametrize(
    "weights, n, replacement, match",
    [
        ([1.0, -1.0], 1, True, "non-negative"),
        ([1.0, float("inf")], 1, True, "finite"),
        ([0.0, 0.0], 1, True, "positive sum"),
        ([1.0, 0.0, 1.0], 3, False, "more samples than non-zero weights"),
        ([1.0], 0, True, "num_samples must be positive"),
    ],
)
def test_multinomial_refuses_bad_input(weights, n, replacement, match):
    with pytest.raises(ValueError, match=match):
        sdk.multinomial(sdk.tensor(weights), n, replacement)


def test_multinomial_refuses_bad_types_and_shapes():
    with pytest.raises(ValueError, match="1-D or 2-D"):
        sdk.multinomial(sdk.ones(2, 2, 2), 1)
    with pytest.raises(TypeError, match="argument 'num_samples' must be int"):
        sdk.multinomial(sdk.ones(3), 1.5)


def test_rng_state_round_trips_for_the_default_and_a_generator():
    sdk.manual_seed(21)
    sdk.randn(3)  # an odd count: a Box-Muller spare is part of the state
    state = sdk.get_rng_state()
    assert state.dtype == sdk.uint8 and state.shape == (48,)
    first = (sdk.randn(5).tolist(), sdk.rand(4).tolist(), sdk.randint(0, 100, (6,)).tolist())
    sdk.set_rng_state(state)
    again = (sdk.randn(5).tolist(), sdk.rand(4).tolist(), sdk.randint(0, 100, (6,)).tolist())
    assert first == again
    g = sdk.Generator().manual_seed(5)
    saved = g.get_state()
    a = sdk.randn(7, generator=g).tolist()
    assert g.set_state(saved) is g
    assert sdk.randn(7, generator=g).tolist() == a
    other = sdk.Generator().set_state(saved)  # a state moves between generators
    assert sdk.randn(7, generator=other).tolist() == a


def test_set_rng_state_refuses_what_is_not_a_state():
    good = sdk.get_rng_state()
    before = sdk.get_rng_state()
    bad_magic = good.clone()
    bad_magic[0] = 0
    zero_words = good.clone()
    zero_words[8:40] = 0
    for state, match in (
        (bad_magic, "not a generator state"),
        (zero_words, "all-zero state"),
        (good[:40].contiguous(), "48 bytes, got 40"),
    ):
        with pytest.raises(ValueError, match=match):
            sdk.set_rng_state(state)
    with pytest.raises(TypeError, match="1-D uint8"):
        sdk.set_rng_state(good.to(sdk.int64))
    with pytest.raises(TypeError, match="must be Tensor"):
        sdk.set_rng_state(bytes(48))
    assert sdk.get_rng_state().tolist() == before.tolist()  # refused: nothing changed
