"""autograd.functional: jacobian, hessian, vjp, jvp built on autograd.grad."""
from __future__ import annotations

from .._tensor import Tensor

__all__ = ["vjp", "jacobian", "hessian", "jvp", "hvp", "vhp"]


def _tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _prep(inputs, create_graph):
    return tuple(i.detach().requires_grad_(True) if not create_graph or not i.requires_grad else i for i in inputs)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    from . import enable_grad, grad
    is_t = isinstance(inputs, Tensor)
    inputs = _prep(_tuple(inputs), create_graph)
    with enable_grad():
        out = func(*inputs)
        g = grad(out, inputs, v, create_graph=create_graph, allow_unused=True)
    g = tuple(0 * i if x is None else x for x, i in zip(g, inputs))
    out = out if create_graph else out.detach()
    return out, (g[0] if is_t else g)


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    from . import enable_grad, grad
    from .._creation import zeros_like
    from .._ops.shape import stack
    is_t = isinstance(inputs, Tensor)
    inputs = _prep(_tuple(inputs), create_graph)
    with enable_grad():
        out = func(*inputs)
        outs = _tuple(out)
        jac = []
        for o in outs:
            flat = o.reshape(-1)
            rows = [[] for _ in inputs]
            for k in range(flat.numel()):
                gs = grad(flat[k], inputs, retain_graph=True, create_graph=create_graph, allow_unused=True)
                for r, g, i in zip(rows, gs, inputs):
                    r.append(zeros_like(i) if g is None else g)
            jac.append(tuple(stack(r).reshape(tuple(o.shape) + tuple(i.shape)) if r else
                             zeros_like(i).reshape(tuple(o.shape) + tuple(i.shape)) for r, i in zip(rows, inputs)))
    if isinstance(out, Tensor):
        return jac[0][0] if is_t else jac[0]
    return tuple(j[0] if is_t else j for j in jac)


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    from . import grad

    def jac_fn(*inp):
        out = func(*inp)
        g = grad(out, inp, create_graph=True, allow_unused=True)
        return g[0] if len(g) == 1 else g
    return jacobian(jac_fn, inputs, create_graph=create_graph)


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """Forward-mode product through the double-vjp trick (two reverse passes)."""
    from . import enable_grad, grad
    from .._creation import zeros_like
    is_t = isinstance(inputs, Tensor)
    inputs = _prep(_tuple(inputs), True)
    with enable_grad():
        out = func(*inputs)
        u = zeros_like(out).requires_grad_(True)
        g = grad(out, inputs, u, create_graph=True, allow_unused=True)
        pairs = [(gi, vi) for gi, vi in zip(g, _tuple(v)) if gi is not None]
        jv = grad([p[0] for p in pairs], u, [p[1] for p in pairs], create_graph=create_graph)[0]
    return (out if create_graph else out.detach()), jv


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    from . import enable_grad, grad
    is_t = isinstance(inputs, Tensor)
    inputs = _prep(_tuple(inputs), True)
    with enable_grad():
        out = func(*inputs)
        g = grad(out, inputs, create_graph=True)
        h = grad(g, inputs, _tuple(v), create_graph=create_graph, allow_unused=True)
    return (out if create_graph else out.detach()), (h[0] if is_t else h)


hvp = vhp
