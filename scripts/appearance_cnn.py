"""A tiny CNN embedding of figure crops, trained on same/different-speaker pairs (training
only: needs torch, from the ``dev`` extra; scripts/train_appearance_model.py --metric cnn).

The crops are the speaker regions at 36 x 72 with the text painted paper-white; the net sees
random 32 x 64 windows of them, flipped left-right half of the time (a figure faces either
way), and learns from pairs of one story's balloons in different panels: a logistic loss on
a learned scale times the cosine of the two embeddings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from torch import nn

torch.set_num_threads(2)


class TinyNet(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()

        def block(a: int, b: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(a, b, 3, padding=1), nn.BatchNorm2d(b), nn.ReLU(), nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, 16), block(16, 32), block(32, 48), block(48, 64))
        self.head = nn.Linear(128, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.features(x)
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)
        z = self.head(pooled)
        return nn.functional.normalize(z, dim=1)


def _tensor(crops: npt.NDArray[np.uint8]) -> torch.Tensor:
    return torch.from_numpy(crops.astype(np.float32) / 255.0 - 0.5).permute(0, 3, 1, 2).contiguous()


def _augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    n = x.shape[0]
    dx = torch.randint(0, 5, (n,), generator=gen)
    dy = torch.randint(0, 9, (n,), generator=gen)
    out = torch.stack([x[k, :, int(dy[k]) : int(dy[k]) + 64, int(dx[k]) : int(dx[k]) + 32] for k in range(n)])
    flip = torch.rand(n, generator=gen) < 0.5
    out[flip] = out[flip].flip(3)
    gain = 1.0 + 0.1 * (torch.rand(n, 1, 1, 1, generator=gen) - 0.5)
    return out * gain


def _centre(x: torch.Tensor) -> torch.Tensor:
    return x[:, :, 4:68, 2:34]


def pretrain(net: TinyNet, crops: Sequence[npt.NDArray[np.uint8]], epochs: int, seed: int) -> None:
    """Self-supervised: two random windows (and flips) of one crop are one thing, every other
    crop of the batch another (NT-Xent, SimCLR's loss); colours are barely jittered, for a
    figure's colours are what tells it apart."""
    if epochs <= 0 or len(crops) < 8:
        return
    gen = torch.Generator().manual_seed(seed + 1)
    x = _tensor(np.stack(list(crops)))
    opt = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-3)
    rng = np.random.default_rng(seed + 1)
    net.train()
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(order) - 7, 128):
            idx = torch.from_numpy(order[start : start + 128])
            a, b = net(_augment(x[idx], gen)), net(_augment(x[idx], gen))
            z = torch.cat([a, b])
            sim = z @ z.T / 0.2
            sim.fill_diagonal_(-1e9)
            n = len(idx)
            target = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
            loss = nn.functional.cross_entropy(sim, target)
            opt.zero_grad()
            loss.backward()
            opt.step()


def train_cnn(
    items: Sequence[Any],
    dim: int,
    epochs: int,
    seed: int,
    unlabelled: Sequence[Any] = (),
    pretrain_epochs: int = 0,
) -> TinyNet:
    """The net fitted on ``items``' pairs (same story, different panels), after
    ``pretrain_epochs`` of self-supervision on the crops of ``items`` and ``unlabelled``."""
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    x = _tensor(np.stack([it.crop for it in items]))
    stories = sorted({it.story for it in items})
    by_story = [np.array([k for k, it in enumerate(items) if it.story == s]) for s in stories]
    persons = {p: k for k, p in enumerate(sorted({(it.story, it.speaker) for it in items}))}
    person = torch.tensor([persons[(it.story, it.speaker)] for it in items])
    panel = [(it.page, it.panel) for it in items]
    net = TinyNet(dim)
    pretrain(net, [it.crop for it in items] + [u.crop for u in unlabelled], pretrain_epochs, seed)
    scale = nn.Parameter(torch.tensor(5.0))
    bias = nn.Parameter(torch.tensor(-1.0))
    opt = torch.optim.AdamW([*net.parameters(), scale, bias], lr=3e-3, weight_decay=1e-3)
    steps = epochs * max(1, len(items) // 64)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        # a batch of whole stories: pairs exist only within one story
        picked: list[int] = []
        for s in rng.permutation(len(stories)):
            picked.extend(by_story[s].tolist())
            if len(picked) >= 64:
                break
        idx = torch.tensor(picked[:96])
        net.train()
        z = net(_augment(x[idx], gen))
        cos = z @ z.T
        st = [items[int(k)].story for k in idx]
        pn = [panel[int(k)] for k in idx]
        mask = torch.tensor(
            [[st[a] == st[b] and pn[a] != pn[b] and a < b for b in range(len(idx))] for a in range(len(idx))]
        )
        if not mask.any():
            continue
        same = (person[idx][:, None] == person[idx][None, :]).float()
        logits = scale * cos + bias
        loss = nn.functional.binary_cross_entropy_with_logits(logits[mask], same[mask])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
    net.eval()
    return net


def embed(net: TinyNet, items: Sequence[Any]) -> npt.NDArray[np.float32]:
    with torch.no_grad():
        x = _centre(_tensor(np.stack([it.crop for it in items])))
        return np.asarray(net(x).numpy(), np.float32)


def cnn_embedder(
    dim: int, epochs: int, seed: int, unlabelled: Sequence[Any] = (), pretrain_epochs: int = 0
) -> Callable[[Sequence[Any], Sequence[Any]], npt.NDArray[np.float32]]:
    def run(train: Sequence[Any], held: Sequence[Any]) -> npt.NDArray[np.float32]:
        # self-supervision sees the training stories' crops only: the held-out story stays unseen
        stories = {it.story for it in train}
        mine = [u for u in unlabelled if u.story in stories]
        return embed(train_cnn(train, dim, epochs, seed, mine, pretrain_epochs), held)

    return run
