"""A tiny character-level GPT -- ordinary PyTorch code, run by leafgrad.

    PYTHONPATH=src python examples/char_gpt.py

Token and position embeddings, pre-LayerNorm blocks of causal self-attention (written out with a
``tril`` mask buffer, as minGPT does) and an MLP, trained with AdamW on next-character
cross-entropy, then sampled with ``torch.multinomial``. Every function takes the library as its
first argument so the same code runs on torch for comparison; batches come from NumPy so both
libraries see the same data.
"""
import math

import numpy as np

TEXT = ("To be, or not to be, that is the question:\nWhether 'tis nobler in the mind to suffer\n"
        "The slings and arrows of outrageous fortune,\nOr to take arms against a sea of troubles\n")


def make_gpt(torch, vocab: int, block: int, n_embd: int = 32, n_head: int = 4, n_layer: int = 2,
             dropout: float = 0.0):
    """Build the model with ``torch``'s nn (classes are made per library, so they subclass its Module)."""
    nn, F = torch.nn, torch.nn.functional

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(n_embd, 3 * n_embd)
            self.proj = nn.Linear(n_embd, n_embd)
            self.drop = nn.Dropout(dropout)
            self.register_buffer("mask", torch.tril(torch.ones(block, block)).view(1, 1, block, block),
                                 persistent=False)

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.qkv(x).split(n_embd, dim=2)
            q, k, v = (t.view(B, T, n_head, C // n_head).transpose(1, 2) for t in (q, k, v))
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.mask[:, :, :T, :T] == 0, float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.drop(self.proj(y))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention()
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd), nn.Dropout(dropout))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = block
            self.tok = nn.Embedding(vocab, n_embd)
            self.pos = nn.Embedding(block, n_embd)
            self.blocks = nn.ModuleList(Block() for _ in range(n_layer))
            self.ln_f = nn.LayerNorm(n_embd)
            self.head = nn.Linear(n_embd, vocab, bias=False)

        def forward(self, idx, targets=None):
            T = idx.size(1)
            pos = torch.arange(T, dtype=torch.long).unsqueeze(0)
            x = self.tok(idx) + self.pos(pos)
            for b in self.blocks:
                x = b(x)
            logits = self.head(self.ln_f(x))
            loss = None
            if targets is not None:
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

        @torch.no_grad()
        def generate(self, idx, new_tokens: int, temperature: float = 1.0, top_k=None):
            for _ in range(new_tokens):
                logits, _ = self(idx[:, -self.block:])
                logits = logits[:, -1, :] / temperature
                if top_k is not None:
                    v, _ = torch.topk(logits, top_k)
                    logits[logits < v[:, [-1]]] = -float("inf")
                probs = F.softmax(logits, dim=-1)
                idx = torch.cat((idx, torch.multinomial(probs, num_samples=1)), dim=1)
            return idx

    return GPT()


def encode(text: str = TEXT):
    chars = sorted(set(text))
    return np.array([chars.index(c) for c in text], dtype=np.int64), chars


def batches(ids: np.ndarray, block: int, batch: int, steps: int, seed: int = 0):
    """The same (x, y) NumPy batches for any library."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        starts = rng.integers(0, len(ids) - block - 1, size=batch)
        x = np.stack([ids[s:s + block] for s in starts])
        y = np.stack([ids[s + 1:s + block + 1] for s in starts])
        yield x, y


def train(torch, model, ids, block: int, steps: int = 20, batch: int = 8, lr: float = 3e-3, seed: int = 0):
    """AdamW with weight decay on the matrices only (as minGPT groups them); return the losses."""
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "tok" not in n and "pos" not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and "tok" not in n and "pos" not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.95))
    losses = []
    for x, y in batches(ids, block, batch, steps, seed):
        _, loss = model(torch.tensor(x), torch.tensor(y))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    import leafgrad as torch

    torch.manual_seed(0)
    ids, chars = encode()
    block = 16
    model = make_gpt(torch, len(chars), block)
    losses = train(torch, model, ids, block, steps=60)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    model.eval()
    out = model.generate(torch.tensor(ids[None, :4]), 60, top_k=5)[0]
    print("".join(chars[int(i)] for i in out))
