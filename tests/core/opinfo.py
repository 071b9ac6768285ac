"""One table of sample inputs per op, shared by the differential, gradcheck and gradgradcheck tests.

Each case is written once against the torch API and run on both libraries: ``fn(m, *xs)``
where ``m`` is ``torch`` or ``leafgrad`` and ``xs`` are tensors that require grad.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np


@dataclass(frozen=True)
class OpCase:
    name: str
    fn: Callable
    shapes: tuple = ((3, 4),)
    domain: str = "any"  # "any", "pos" (>= 0.5), "away" (|x| >= 0.3, no kinks or ties)
    double: bool = True  # run gradgradcheck (False where the op is piecewise linear and FD is flaky)
    fd: bool = True  # finite differences make sense (False for ops that round, like a float32 cast)

    def inputs(self, seed: int = 0):
        rng = np.random.default_rng(seed)
        out = []
        for shp in self.shapes:
            x = rng.standard_normal(shp)
            if self.domain == "pos":
                x = np.abs(x) + 0.5
            elif self.domain == "away":
                x = np.sign(x) * (np.abs(x) + 0.3) + rng.uniform(-0.01, 0.01, shp) * 0
            out.append(x)
        return out


def _idx(m, data):
    return m.tensor(data)


CASES = [
    OpCase("add", lambda m, a, b: a + b, ((3, 4), (3, 4))),
    OpCase("add_bcast", lambda m, a, b: a + b, ((3, 4), (4,))),
    OpCase("add_alpha", lambda m, a, b: m.add(a, b, alpha=2.5), ((3, 4), (1, 4))),
    OpCase("add_scalar", lambda m, a: 2 + a),
    OpCase("sub", lambda m, a, b: a - b, ((2, 3, 4), (3, 1))),
    OpCase("rsub", lambda m, a: 1.5 - a),
    OpCase("mul", lambda m, a, b: a * b, ((3, 4), (3, 4))),
    OpCase("mul_bcast", lambda m, a, b: a * b, ((2, 1, 4), (3, 1))),
    OpCase("mul_scalar", lambda m, a: a * 3),
    OpCase("div", lambda m, a, b: a / b, ((3, 4), (3, 4)), "pos"),
    OpCase("rdiv", lambda m, a: 2 / a, ((3, 4),), "pos"),
    OpCase("neg", lambda m, a: -a),
    OpCase("pow_scalar", lambda m, a: a ** 3),
    OpCase("pow_frac", lambda m, a: a ** 0.5, ((3, 4),), "pos"),
    OpCase("pow_tensor", lambda m, a, b: a ** b, ((3, 4), (3, 4)), "pos"),
    OpCase("rpow", lambda m, a: 2 ** a),
    OpCase("exp", lambda m, a: a.exp()),
    OpCase("expm1", lambda m, a: a.expm1()),
    OpCase("log", lambda m, a: a.log(), domain="pos"),
    OpCase("log1p", lambda m, a: a.log1p(), domain="pos"),
    OpCase("sqrt", lambda m, a: a.sqrt(), domain="pos"),
    OpCase("rsqrt", lambda m, a: a.rsqrt(), domain="pos"),
    OpCase("sin", lambda m, a: a.sin()),
    OpCase("cos", lambda m, a: a.cos()),
    OpCase("tanh", lambda m, a: a.tanh()),
    OpCase("sigmoid", lambda m, a: a.sigmoid()),
    OpCase("relu", lambda m, a: a.relu(), domain="away"),
    OpCase("abs", lambda m, a: a.abs(), domain="away"),
    OpCase("sign", lambda m, a: a.sign() * a, domain="away"),
    OpCase("reciprocal", lambda m, a: a.reciprocal(), domain="pos"),
    OpCase("clamp", lambda m, a: a.clamp(-0.5, 0.5), domain="away", double=False),
    OpCase("clamp_min", lambda m, a: a.clamp(min=0.1), domain="away", double=False),
    OpCase("where", lambda m, a, b: m.where(a > 0, a, b), ((3, 4), (3, 4)), "away"),
    OpCase("maximum", lambda m, a, b: m.maximum(a, b), ((3, 4), (3, 4)), double=False),
    OpCase("minimum", lambda m, a, b: m.minimum(a, b), ((3, 4), (4,)), double=False),
    OpCase("sum", lambda m, a: a.sum()),
    OpCase("sum_dim", lambda m, a: a.sum(1)),
    OpCase("sum_dims_keep", lambda m, a: a.sum((0, 2), keepdim=True), ((2, 3, 4),)),
    OpCase("mean", lambda m, a: a.mean()),
    OpCase("mean_dim", lambda m, a: a.mean(-1, keepdim=True)),
    OpCase("prod", lambda m, a: a.prod(), ((2, 3),)),
    OpCase("prod_dim", lambda m, a: a.prod(1)),
    OpCase("max_all", lambda m, a: a.max()),
    OpCase("max_dim", lambda m, a: a.max(1)[0]),
    OpCase("min_dim_keep", lambda m, a: a.min(0, keepdim=True).values),
    OpCase("min_all", lambda m, a: a.min()),
    OpCase("amax", lambda m, a: a.amax(0)),
    OpCase("amin", lambda m, a: a.amin((0, 1))),
    OpCase("var", lambda m, a: a.var()),
    OpCase("var_dim", lambda m, a: a.var(1, unbiased=False)),
    OpCase("std", lambda m, a: a.std(0)),
    OpCase("logsumexp", lambda m, a: a.logsumexp(1)),
    OpCase("norm", lambda m, a: a.norm()),
    OpCase("norm_dim", lambda m, a: a.norm(dim=1)),
    OpCase("norm_p1", lambda m, a: a.norm(p=1), domain="away", double=False),
    OpCase("softmax", lambda m, a: a.softmax(1)),
    OpCase("log_softmax", lambda m, a: a.log_softmax(0)),
    OpCase("mm", lambda m, a, b: a.mm(b), ((3, 4), (4, 5))),
    OpCase("matmul_2d", lambda m, a, b: a @ b, ((3, 4), (4, 2))),
    OpCase("matmul_mv", lambda m, a, b: a @ b, ((3, 4), (4,))),
    OpCase("matmul_vm", lambda m, a, b: a @ b, ((4,), (4, 3))),
    OpCase("matmul_dot", lambda m, a, b: a @ b, ((4,), (4,))),
    OpCase("matmul_3d_2d", lambda m, a, b: a @ b, ((2, 3, 4), (4, 5))),
    OpCase("matmul_batched", lambda m, a, b: a @ b, ((2, 3, 4), (2, 4, 5))),
    OpCase("matmul_bcast", lambda m, a, b: a @ b, ((2, 1, 3, 4), (3, 4, 2))),
    OpCase("bmm", lambda m, a, b: a.bmm(b), ((2, 3, 4), (2, 4, 2))),
    OpCase("dot", lambda m, a, b: m.dot(a, b), ((5,), (5,))),
    OpCase("outer", lambda m, a, b: m.outer(a, b), ((3,), (4,))),
    OpCase("addmm", lambda m, c, a, b: m.addmm(c, a, b), ((3, 5), (3, 4), (4, 5))),
    OpCase("reshape", lambda m, a: a.reshape(2, 6) * 1),
    OpCase("view", lambda m, a: a.view(4, 3)),
    OpCase("reshape_copy", lambda m, a: a.t().reshape(12)),
    OpCase("flatten", lambda m, a: a.flatten()),
    OpCase("transpose", lambda m, a: a.transpose(0, 2), ((2, 3, 4),)),
    OpCase("permute", lambda m, a: a.permute(2, 0, 1), ((2, 3, 4),)),
    OpCase("t", lambda m, a: a.t()),
    OpCase("T", lambda m, a: a.T, ((2, 3, 4),)),
    OpCase("squeeze", lambda m, a: a.squeeze(), ((3, 1, 4),)),
    OpCase("squeeze_dim", lambda m, a: a.squeeze(1), ((3, 1, 4),)),
    OpCase("unsqueeze", lambda m, a: a.unsqueeze(-1)),
    OpCase("expand", lambda m, a: a.expand(2, 3, 4), ((3, 1),)),
    OpCase("expand_as", lambda m, a, b: a.expand_as(b) * b, ((1, 4), (3, 4))),
    OpCase("cat", lambda m, a, b: m.cat([a, b], 1), ((3, 4), (3, 2))),
    OpCase("stack", lambda m, a, b: m.stack([a, b], 1), ((3, 4), (3, 4))),
    OpCase("split", lambda m, a: a.split(2, 1)[1]),
    OpCase("split_sizes", lambda m, a: a.split([1, 3], 1)[1]),
    OpCase("chunk", lambda m, a: a.chunk(3, 0)[2]),
    OpCase("unbind", lambda m, a: a.unbind(1)[1]),
    OpCase("narrow", lambda m, a: a.narrow(1, 1, 2)),
    OpCase("select", lambda m, a: a.select(0, 1)),
    OpCase("diagonal", lambda m, a: a.diagonal(1)),
    OpCase("flip", lambda m, a: a.flip(0, 1)),
    OpCase("repeat", lambda m, a: a.repeat(2, 1, 2)),
    OpCase("index_int", lambda m, a: a[1]),
    OpCase("index_slice", lambda m, a: a[:, 1:3]),
    OpCase("index_step", lambda m, a: a[::2, ::3]),
    OpCase("index_mixed", lambda m, a: a[1, 1:]),
    OpCase("index_none_ellipsis", lambda m, a: a[None, ..., 1], ((2, 3, 4),)),
    OpCase("index_tensor", lambda m, a: a[_idx(m, [0, 2, 0])]),
    OpCase("index_tensor_2d", lambda m, a: a[_idx(m, [0, 2]), _idx(m, [1, 3])]),
    OpCase("index_mask", lambda m, a: a[a > 0]),
    OpCase("index_slice_adv", lambda m, a: a[1:, _idx(m, [0, 0, 3])]),
    OpCase("gather", lambda m, a: a.gather(1, _idx(m, [[0, 1], [2, 2], [3, 0]]))),
    OpCase("index_select", lambda m, a: a.index_select(1, _idx(m, [3, 0, 3]))),
    OpCase("masked_fill", lambda m, a: a.masked_fill(a > 0.5, 0.0)),
    OpCase("clone", lambda m, a: a.clone()),
    OpCase("to_double", lambda m, a: a.to(m.float32).to(m.float64), fd=False),
]

BY_NAME = {c.name: c for c in CASES}
