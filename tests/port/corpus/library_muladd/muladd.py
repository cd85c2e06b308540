"""Python wrappers of the corpus_muladd operators, as a torch extension package writes them."""

import torch


def muladd(a: torch.Tensor, b: torch.Tensor, c: float) -> torch.Tensor:
    return torch.ops.corpus_muladd.muladd.default(a, b, c)


def square_plus(a: torch.Tensor, c: float) -> torch.Tensor:
    return torch.ops.corpus_muladd.square_plus(a, c)
