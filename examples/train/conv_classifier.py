"""Train a small convolutional classifier on generated images (a horizontal, vertical,
diagonal or anti-diagonal stroke in noise) with DataLoader + AdamW + OneCycleLR; the
activation is a custom C++ op (common.CppSiLU).

    python conv_classifier.py [--epochs 6] [--train 3000] [--workers 0] [--no-cpp] [--quiet]

It prints the validation accuracy after each epoch and exits nonzero if the final one is
below --target (default 0.95), which it reaches in about 5 s on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from common import CppSiLU, Timer, evaluate, save_history, train_epoch

import sdk
from sdk import nn, optim
from sdk.utils.data import DataLoader, TensorDataset

SIZE, CLASSES, STROKE = 12, 4, 6


def make_images(n: int, seed: int) -> tuple:
    """n noisy SIZE x SIZE images, each with one stroke of class 0 (-), 1 (|), 2 (\\) or 3 (/)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.35, size=(n, 1, SIZE, SIZE)).astype(np.float32)
    y = rng.integers(0, CLASSES, size=n)
    steps = np.arange(STROKE)
    for i, c in enumerate(y):
        r, q = rng.integers(0, SIZE - STROKE + 1, size=2)
        rows, cols = {0: (np.full(STROKE, r), q + steps), 1: (r + steps, np.full(STROKE, q)),
                      2: (r + steps, q + steps), 3: (r + steps, q + STROKE - 1 - steps)}[int(c)]  # fmt: skip
        x[i, 0, rows, cols] += 1.0
    return sdk.tensor(x), sdk.tensor(y)


def make_model(use_cpp: bool) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.BatchNorm2d(16),
        CppSiLU(use_cpp),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        CppSiLU(use_cpp),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.1),
        nn.Linear(32, CLASSES),
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--train", type=int, default=3000, help="training images")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    p.add_argument("--target", type=float, default=0.95)
    p.add_argument("--no-cpp", action="store_true", help="use sdk's silu, not the C++ op")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", type=Path, default=Path("conv_classifier_history"))
    args = p.parse_args(argv)

    sdk.manual_seed(0)
    train_ds = TensorDataset(*make_images(args.train, seed=1))
    val_ds = TensorDataset(*make_images(1000, seed=2))
    train_dl = DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, drop_last=True,
                          num_workers=args.workers, generator=sdk.Generator(0))  # fmt: skip
    val_dl = DataLoader(val_ds, batch_size=256)
    model = make_model(not args.no_cpp)
    opt = optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-2)
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, epochs=args.epochs,
                                          steps_per_epoch=len(train_dl))  # fmt: skip
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
