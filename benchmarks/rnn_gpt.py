#!/usr/bin/env python
"""Real-model training steps on leafgrad and torch, in one process, one thread: an LSTM language
model and a small GPT (issue 13's "real models are slower than they should be").

* ``lstm``: ``nn.LSTM(73, 128, 2)`` forward + backward on a (50, 8, 73) batch (the issue's number);
* ``lstm_lm``: embedding -> 2-layer LSTM 128 -> linear -> cross-entropy -> SGD step;
* ``gpt``: minGPT's shape (2 blocks, 4 heads, d=64, seq 64, batch 8; causal attention written with
  matmul / masked_fill / softmax as minGPT does) -> cross-entropy -> AdamW step;
* ``gpt_sample``: the same model sampling as minGPT's ``generate`` does, under ``no_grad``: 16 new
  tokens, one forward of the whole context (batch 1, 8 tokens growing to 23) per token, the last
  position's logits -> softmax -> the most likely token (greedy, so both libraries pick the same).
  A step is the 16 tokens.

The same model code runs on both libraries (leafgrad's API is torch's), from the same weights (torch's,
copied through ``state_dict``); the first step's losses are checked to agree before timing. Rounds
alternate the libraries (drift of a shared machine hits both alike); the table shows the minimum
ms/step over the rounds and the ratio leafgrad / torch.

Usage: ``python benchmarks/rnn_gpt.py [--rounds 5] [--steps 10] [--only lstm,gpt]``; ``--quick`` (CI)
runs tiny sizes once, to prove the benchmark works.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_var] = "1"  # (before NumPy and torch load their BLAS)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

import numpy as np  # noqa: E402


def _libraries():
    import torch
    import leafgrad
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
        _libraries.limiter = threadpool_limits(limits=1)  # (kept alive for the process)
    except ImportError:
        pass
    return {"torch": torch, "leafgrad": leafgrad}


# ------------------------------------------------------------------------------------------ models
def lstm_lm(lib, vocab: int, emb: int, hidden: int):
    nn = lib.nn

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, emb)
            self.rnn = nn.LSTM(emb, hidden, 2)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx):
            out, _ = self.rnn(self.embed(idx))
            return self.head(out)
    return LM()


def gpt(lib, vocab: int, block: int, d: int, heads: int, layers: int):
    nn, F = lib.nn, lib.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(d, 3 * d)
            self.c_proj = nn.Linear(d, d)
            self.register_buffer("bias", lib.tril(lib.ones(block, block)).view(1, 1, block, block))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(d, dim=2)
            k = k.view(B, T, heads, C // heads).transpose(1, 2)
            q = q.view(B, T, heads, C // heads).transpose(1, 2)
            v = v.view(B, T, heads, C // heads).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.attn, self.ln_2 = nn.LayerNorm(d), CausalSelfAttention(), nn.LayerNorm(d)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.ln_f, self.lm_head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

        def forward(self, idx):
            x = self.wte(idx) + self.wpe(lib.arange(idx.size(1)))
            for blk in self.blocks:
                x = blk(x)
            return self.lm_head(self.ln_f(x))
    return GPT()


# ------------------------------------------------------------------------------------------ steps
def _same_weights(models: dict) -> None:
    """leafgrad's model gets torch's initial weights."""
    import leafgrad
    state = {k: leafgrad.tensor(v.detach().numpy().copy()) for k, v in models["torch"].state_dict().items()}
    models["leafgrad"].load_state_dict(state)


def make_workload(name: str, libs: dict, quick: bool):
    """{library: step()} for workload ``name``; each step returns the loss as a float."""
    rng = np.random.default_rng(0)
    steps = {}
    if name == "lstm":
        seq, batch, feat, hidden = (6, 2, 5, 8) if quick else (50, 8, 73, 128)
        x = rng.standard_normal((seq, batch, feat)).astype(np.float32)
        models = {k: lib.nn.LSTM(feat, hidden, 2) for k, lib in libs.items()}
        _same_weights(models)
        for k, lib in libs.items():
            m, xt = models[k], lib.tensor(x, requires_grad=True)

            def step(m=m, xt=xt):
                out, _ = m(xt)
                loss = out.sum()
                m.zero_grad()
                loss.backward()
                return loss.item()
            steps[k] = step
        return steps
    if name == "gpt_sample":
        vocab, seq, d, heads, layers, new = (11, 8, 16, 2, 1, 3) if quick else (65, 64, 64, 4, 2, 16)
        models = {k: gpt(lib, vocab, seq, d, heads, layers) for k, lib in libs.items()}
        _same_weights(models)
        prompt = rng.integers(0, vocab, (1, 8 if not quick else 4))
        for k, lib in libs.items():
            def step(m=models[k], lib=lib):
                m.eval()
                idx = lib.tensor(prompt)
                with lib.no_grad():
                    for _ in range(new):
                        logits = m(idx[:, -seq:])
                        probs = lib.nn.functional.softmax(logits[:, -1, :], dim=-1)
                        nxt = lib.argmax(probs, dim=-1, keepdim=True)
                        idx = lib.cat((idx, nxt), dim=1)
                return float(idx.sum().item()) + float(probs.max().item())  # (the tokens, and the last step's odds)
            steps[k] = step
        return steps
    if name == "lstm_lm":
        vocab, emb, hidden, seq, batch = (11, 5, 8, 6, 2) if quick else (65, 73, 128, 50, 8)
        models = {k: lstm_lm(lib, vocab, emb, hidden) for k, lib in libs.items()}
        make_opt = (lambda lib, m: lib.optim.SGD(m.parameters(), lr=0.1))
    else:
        vocab, seq, d, heads, layers, batch = (11, 8, 16, 2, 1, 2) if quick else (65, 64, 64, 4, 2, 8)
        models = {k: gpt(lib, vocab, seq, d, heads, layers) for k, lib in libs.items()}
        make_opt = (lambda lib, m: lib.optim.AdamW(m.parameters(), lr=1e-3))
    _same_weights(models)
    idx = rng.integers(0, vocab, (seq, batch) if name == "lstm_lm" else (batch, seq))
    target = rng.integers(0, vocab, idx.shape)
    for k, lib in libs.items():
        m, opt = models[k], make_opt(lib, models[k])
        it, tt = lib.tensor(idx), lib.tensor(target)

        def step(m=m, opt=opt, it=it, tt=tt, lib=lib):
            logits = m(it)
            loss = lib.nn.functional.cross_entropy(logits.reshape(-1, vocab), tt.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()
            return loss.item()
        steps[k] = step
    return steps


def measure(name: str, libs: dict, rounds: int, n_steps: int, quick: bool) -> dict:
    steps = make_workload(name, libs, quick)
    first = {k: s() for k, s in steps.items()}  # (also a warm-up)
    if not math.isclose(first["torch"], first["leafgrad"], rel_tol=1e-4, abs_tol=1e-4):
        raise SystemExit(f"{name}: the libraries disagree on the first loss: {first}")
    best = {k: float("inf") for k in steps}
    for _ in range(rounds):
        for k, s in steps.items():
            t0 = time.perf_counter()
            for _ in range(n_steps):
                s()
            best[k] = min(best[k], (time.perf_counter() - t0) / n_steps * 1e3)
    return best


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny sizes, one round of two steps (CI)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--steps", type=int, default=10, help="steps per round per library")
    p.add_argument("--only", default="lstm,lstm_lm,gpt,gpt_sample")
    args = p.parse_args(argv)
    libs = _libraries()
    rounds, n_steps = (1, 2) if args.quick else (args.rounds, args.steps)
    print(f"{'workload':10} {'leafgrad ms':>12} {'torch ms':>10} {'ratio':>7}   (min over {rounds} rounds, 1 thread)")
    for name in args.only.split(","):
        best = measure(name, libs, rounds, n_steps, args.quick)
        print(f"{name:10} {best['leafgrad']:12.2f} {best['torch']:10.2f} {best['leafgrad'] / best['torch']:7.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
