"""torch.amp.GradScaler / torch.cuda.amp.GradScaler and autocast, on CPU and disabled, as torch 2.13 runs them."""
from __future__ import annotations

import pickle

import pytest

import leafgrad as lg
from apihelp import outcome, same_outcome

torch = pytest.importorskip("torch")


def _run(m, ctor, grads):
    """A few training steps with a scaler; returns every observable along the way."""
    x = m.tensor([1.5, -2.0], requires_grad=True)
    opt = m.optim.SGD([x], lr=0.1)
    scaler = ctor(m)
    log = [scaler.is_enabled(), scaler.get_scale(), scaler.state_dict()]
    for g in grads:
        opt.zero_grad()
        loss = (x * x).sum() * g
        scaled = scaler.scale(loss)
        log.append(scaled.detach().item())  # (float() of a grad-requiring tensor warns once per process)
        scaled.backward()
        scaler.unscale_(opt)
        log.append(x.grad.tolist())
        log.append(outcome(lambda: scaler.unscale_(opt))[0])
        scaler.step(opt)
        log.append(outcome(lambda: scaler.step(opt))[0])
        scaler.update()
        log += [x.tolist(), scaler.get_scale(), scaler.state_dict()]
    return log


CTORS = {
    "cpu": lambda m: m.amp.GradScaler("cpu"),
    "cpu-small": lambda m: m.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2, growth_factor=3.0,
                                            backoff_factor=0.25),
    "disabled": lambda m: m.amp.GradScaler("cpu", enabled=False),
    "cuda-default": lambda m: m.amp.GradScaler(),
    "cuda-legacy": lambda m: m.cuda.amp.GradScaler(),
}


@pytest.mark.parametrize("kind", list(CTORS))
@pytest.mark.parametrize("grads", [[1.0, 1.0, 1.0], [1.0, float("inf"), 1.0, 1.0], [float("nan"), 2.0]])
def test_grad_scaler_steps(kind, grads):
    (t, tw), (m, mw) = outcome(lambda: _run(torch, CTORS[kind], grads)), outcome(lambda: _run(lg, CTORS[kind], grads))
    # leafgrad's SGD step on an inf gradient lets NumPy's "invalid value" RuntimeWarning out, which torch
    # does not give (the optimizer's arithmetic, not the scaler's): the scaler's own warnings must match
    assert tw == [w for w in mw if w != "RuntimeWarning"]
    assert t[0] == m[0] == "ok", (t, m)
    assert repr(m[1]) == repr(t[1])  # (repr: nan equals nan)


def test_scaled_loss_graph_and_containers():
    for m in (torch, lg):
        m.manual_seed(0)
    xs = {m: m.tensor(2.0, requires_grad=True) for m in (torch, lg)}
    res = {}
    for m, x in xs.items():
        s = m.amp.GradScaler("cpu", init_scale=8.0)
        out = s.scale(x * 3)
        lst = s.scale([x * 1, x * 2])
        tup = s.scale((x * 1, x * 2))
        it = s.scale({"a": x})
        res[m] = (out.item(), type(out.grad_fn).__name__, [v.item() for v in lst], type(tup).__name__,
                  type(it).__name__, outcome(lambda: s.scale(3))[0], s.get_scale())
    assert res[torch] == res[lg]


@pytest.mark.parametrize("call", ["step", "update", "unscale_"])
def test_calls_before_scale(call):
    def go(m):
        x = m.tensor(1.0, requires_grad=True)
        opt = m.optim.SGD([x], lr=0.1)
        s = m.amp.GradScaler("cpu")
        return getattr(s, call)(opt) if call != "update" else s.update()
    same_outcome(lambda: go(torch), lambda: go(lg), compare_message=True)


def test_errors_and_state_dict_round_trip():
    def go(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        opt = m.optim.SGD([x], lr=0.5)
        a = m.amp.GradScaler("cpu", init_scale=16.0)
        a.scale(x.sum()).backward()
        a.step(opt)
        out = [outcome(lambda: a.unscale_(opt))[0], outcome(lambda: a.step(opt, closure=None))[0]]
        a.update(new_scale=3.0)
        out.append(a.get_scale())
        out.append(outcome(lambda: a.update(new_scale=m.tensor([2.0, 1.0])))[0])
        b = m.amp.GradScaler("cpu")
        out.append(outcome(lambda: b.load_state_dict({}))[0])
        b.load_state_dict(a.state_dict())
        out += [b.get_scale(), b.state_dict(), outcome(lambda: m.amp.GradScaler("cpu", growth_factor=1.0))[0],
                outcome(lambda: m.amp.GradScaler("cpu", backoff_factor=1.0))[0]]
        c = pickle.loads(pickle.dumps(a))
        out += [c.get_scale(), c.state_dict()]
        d = m.amp.GradScaler("cpu", enabled=False)
        out += [d.get_scale(), d.state_dict(), outcome(lambda: d.get_growth_factor())[0], d._get_growth_tracker()]
        y = m.tensor([1.0], requires_grad=True)
        e = m.amp.GradScaler("cpu")
        e.scale(y.sum())
        out.append(outcome(lambda: e.step(m.optim.SGD([y], lr=1.0)))[0])  # no gradients: nothing was checked
        return out
    t, m_ = go(torch), go(lg)
    assert t == m_


def test_fp16_grads_refused():
    def go(m):
        x = m.tensor([1.0], dtype=m.float16, requires_grad=True)
        opt = m.optim.SGD([x], lr=0.5)
        s = m.amp.GradScaler("cpu", init_scale=4.0)
        s.scale(x.float().sum()).backward()
        return s.unscale_(opt)
    same_outcome(lambda: go(torch), lambda: go(lg), compare_message=True)


AUTOCAST = [
    ("cpu", {}), ("cpu", {"dtype": "float16"}), ("cpu", {"dtype": "float32"}), ("cpu", {"enabled": False}),
    ("cuda", {}), ("cpu", {"cache_enabled": False}),
]


@pytest.mark.parametrize("device,kw", AUTOCAST)
def test_autocast_state(device, kw):
    def go(m):
        args = {k: (getattr(m, v) if k == "dtype" else v) for k, v in kw.items()}
        before = (m.is_autocast_enabled(device), repr(m.get_autocast_dtype(device)))
        with m.autocast(device, **args) as ac:
            inside = (type(ac).__name__, m.is_autocast_enabled(device), repr(m.get_autocast_dtype(device)),
                      m.is_autocast_enabled())
            with m.amp.autocast(device, enabled=False):
                nested = m.is_autocast_enabled(device)
            inside += (nested, m.is_autocast_enabled(device))
        after = (m.is_autocast_enabled(device), repr(m.get_autocast_dtype(device)))
        m.set_autocast_dtype(device, m.get_autocast_dtype(device))
        return before, inside, after
    same_outcome(lambda: go(torch), lambda: go(lg))


def test_autocast_decorator_errors_and_legacy_forms():
    def go(m):
        @m.autocast("cpu")
        def f():
            return m.is_autocast_enabled("cpu")
        out = [f(), m.is_autocast_enabled("cpu"), outcome(lambda: m.autocast(1))[0][:2],
               outcome(lambda: m.autocast("bogus"))[0][:2], m.amp.is_autocast_available("cpu"),
               m.amp.is_autocast_available("cuda")]
        c, cw = outcome(lambda: m.cuda.amp.autocast())
        out += [c[0], cw]
        return out
    assert go(torch) == go(lg)


def test_custom_fwd_bwd():
    def go(m):
        class Square(m.autograd.Function):
            @staticmethod
            @m.amp.custom_fwd(device_type="cpu")
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            @m.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g
        x = m.tensor([3.0], requires_grad=True)
        Square.apply(x).sum().backward()
        return x.grad.tolist(), outcome(lambda: m.amp.custom_fwd(device_type=1))[0][:2]
    assert go(torch) == go(lg)


def test_cpu_device_module_and_its_amp():
    for name in ("is_available", "is_initialized", "device_count", "current_device", "synchronize"):
        assert getattr(lg.cpu, name)() == getattr(torch.cpu, name)()
    same_outcome(lambda: torch.cpu.set_device("cpu"), lambda: lg.cpu.set_device("cpu"))

    def go(m):
        with m.cpu.amp.autocast() as ac:
            inside = (m.is_autocast_enabled("cpu"), repr(m.get_autocast_dtype("cpu")), type(ac).__name__)
        s = m.cpu.amp.GradScaler(init_scale=8.0)
        return inside, s.is_enabled(), s.get_scale(), m.is_autocast_enabled("cpu")
    same_outcome(lambda: go(torch), lambda: go(lg))
