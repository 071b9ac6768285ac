"""nn.Transformer learning to copy a sequence -- ordinary PyTorch code, run by leafgrad (no DDP).

    PYTHONPATH=src python examples/transformer_seq2seq.py

Source sentences of random tokens (padded with PAD at the end) are copied into the target:
the decoder reads ``[BOS] + src`` under a causal ``generate_square_subsequent_mask`` and key
padding masks for source, target and memory, and is trained with cross-entropy that ignores PAD;
greedy decoding then reads the copy back. Dropout is a parameter (0 makes runs comparable).
"""
import numpy as np

PAD, BOS = 0, 1


def make_model(torch, vocab: int = 12, d_model: int = 32, nhead: int = 4, layers: int = 2,
               ff: int = 64, max_len: int = 16, dropout: float = 0.0):
    nn = torch.nn

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
            self.tgt_emb = nn.Embedding(vocab, d_model, padding_idx=PAD)
            self.pos = nn.Embedding(max_len, d_model)
            self.transformer = nn.Transformer(d_model, nhead, layers, layers, ff, dropout,
                                              batch_first=True)
            self.out = nn.Linear(d_model, vocab)

        def embed(self, emb, tokens):
            pos = torch.arange(tokens.size(1)).unsqueeze(0)
            return emb(tokens) * d_model ** 0.5 + self.pos(pos)

        def forward(self, src, tgt_in):
            T = tgt_in.size(1)   # a bool causal mask, like the bool padding masks (mixing is deprecated)
            causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
            h = self.transformer(self.embed(self.src_emb, src), self.embed(self.tgt_emb, tgt_in),
                                 tgt_mask=causal, src_key_padding_mask=src == PAD,
                                 tgt_key_padding_mask=tgt_in == PAD, memory_key_padding_mask=src == PAD)
            return self.out(h)

        @torch.no_grad()
        def greedy(self, src, steps: int):
            ys = torch.full((src.size(0), 1), BOS, dtype=torch.long)
            for _ in range(steps):
                nxt = self(src, ys)[:, -1].argmax(-1, keepdim=True)
                ys = torch.cat([ys, nxt], dim=1)
            return ys[:, 1:]

    return Seq2Seq()


def copy_batch(rng: np.random.Generator, batch: int = 16, length: int = 7, vocab: int = 12):
    """src: tokens 2..vocab-1 then PAD tail; tgt_in = BOS + src[:-1]; tgt_out = src."""
    src = rng.integers(2, vocab, size=(batch, length))
    lens = rng.integers(length - 2, length + 1, size=batch)
    for i, n in enumerate(lens):
        src[i, n:] = PAD
    tgt_in = np.concatenate([np.full((batch, 1), BOS), src[:, :-1]], axis=1)
    return src, tgt_in, src.copy()


def train(torch, model, steps: int = 10, lr: float = 1e-3, seed: int = 0, **batch_kw):
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98))
    criterion = torch.nn.CrossEntropyLoss(ignore_index=PAD)
    vocab = model.out.out_features
    losses = []
    model.train()
    for _ in range(steps):
        src, tgt_in, tgt_out = (torch.tensor(a) for a in copy_batch(rng, vocab=vocab, **batch_kw))
        logits = model(src, tgt_in)
        loss = criterion(logits.reshape(-1, vocab), tgt_out.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    import leafgrad as torch

    torch.manual_seed(0)
    model = make_model(torch)
    losses = train(torch, model, steps=150, lr=2e-3)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    model.eval()
    src, _, _ = copy_batch(np.random.default_rng(99), batch=3)
    src[:, :] = np.where(src == PAD, 2, src)     # full-length sources for the greedy read-back
    print("src ", src.tolist())
    print("copy", model.greedy(torch.tensor(src), src.shape[1]).tolist())
