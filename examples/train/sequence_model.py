"""Train a small sequence classifier on generated token sequences (is token 1 more frequent
than token 2?) with an Embedding + GRU + LayerNorm model, DataLoader + AdamW and a warmup
then cosine schedule (SequentialLR of LinearLR and CosineAnnealingLR); the activation in the
head is a custom C++ op (common.CppSiLU).

    python sequence_model.py [--epochs 3] [--train 4000] [--workers 0] [--no-cpp] [--quiet]

It prints the validation accuracy after each epoch and exits nonzero if the final one is
below --target (default 0.95), which it reaches in about 5 s on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from common import CppSiLU, Timer, evaluate, save_history, train_epoch

import sdk
from sdk import nn, optim
from sdk.utils.data import DataLoader, TensorDataset

VOCAB, LENGTH = 6, 16


def make_sequences(n: int, seed: int) -> tuple:
    """n sequences of LENGTH tokens; label 1 where token 1 occurs more often than token 2
    (ties are re-drawn, so both classes are about equally common)."""
    rng = np.random.default_rng(seed)
    seqs = rng.integers(0, VOCAB, size=(2 * n, LENGTH))
    ones, twos = (seqs == 1).sum(1), (seqs == 2).sum(1)
    keep = ones != twos
    seqs, labels = seqs[keep][:n], (ones > twos)[keep][:n].astype(np.int64)
    return sdk.tensor(seqs), sdk.tensor(labels)


class GRUClassifier(nn.Module):
    def __init__(self, use_cpp: bool, embed: int = 16, hidden: int = 32) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, embed)
        self.gru = nn.GRU(embed, hidden, batch_first=True)
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Sequential(nn.Linear(hidden, hidden), CppSiLU(use_cpp), nn.Linear(hidden, 2))

    def forward(self, tokens: Any) -> Any:
        _, h = self.gru(self.embed(tokens))  # h: (1, N, hidden), the state after the last token
        return self.head(self.norm(h[0]))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--train", type=int, default=4000, help="training sequences")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--target", type=float, default=0.95)
    p.add_argument("--no-cpp", action="store_true", help="use sdk's silu, not the C++ op")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", type=Path, default=Path("sequence_model_history"))
    args = p.parse_args(argv)

    sdk.manual_seed(0)
    train_ds = TensorDataset(*make_sequences(args.train, seed=1))
    val_ds = TensorDataset(*make_sequences(1000, seed=2))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True,
                          num_workers=args.workers, generator=sdk.Generator(0))  # fmt: skip
    val_dl = DataLoader(val_ds, batch_size=500)
    model = GRUClassifier(not args.no_cpp)
    opt = optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-2)
    S = optim.lr_scheduler
    warmup = max(1, len(train_dl) // 2)
    sched = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.1, total_iters=warmup),
                                 S.CosineAnnealingLR(opt, T_max=args.epochs * len(train_dl) - warmup,
                                                     eta_min=1e-4)],
                           milestones=[warmup])  # fmt: skip
    loss_fn = nn.CrossEntropyLoss()
    history = []
    with Timer() as timer:
        for epoch in range(1, args.epochs + 1):
            train_loss = train_epoch(model, train_dl, opt, sched, loss_fn,
                                     f"epoch {epoch}/{args.epochs}", bar=not args.quiet)  # fmt: skip
            val_loss, val_acc = evaluate(model, val_dl, loss_fn)
            history.append(dict(epoch=epoch, train_loss=train_loss, val_loss=val_loss,
                                val_acc=val_acc))  # fmt: skip
            print(f"epoch {epoch}: train loss {train_loss:.4f}  val loss {val_loss:.4f}  "
                  f"val accuracy {val_acc:.3f}")  # fmt: skip
    print(save_history(history, args.out))
    final = history[-1]["val_acc"]
    print(f"final validation accuracy {final:.3f} (target {args.target}) in {timer.seconds:.1f} s")
    return 0 if final >= args.target else 1


if __name__ == "__main__":
    sys.exit(main())
