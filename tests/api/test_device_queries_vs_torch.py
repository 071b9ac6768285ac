"""torch.cuda, torch.backends, torch.accelerator, default device/dtype, matmul precision: CPU-only torch's answers."""
from __future__ import annotations

import pytest

import leafgrad as lg
from apihelp import same_outcome

torch = pytest.importorskip("torch")

CUDA_CALLS = [
    ("is_available", ()), ("device_count", ()), ("is_initialized", ()), ("is_bf16_supported", ()),
    ("is_bf16_supported", (False,)), ("is_tf32_supported", ()), ("get_arch_list", ()), ("manual_seed", (0,)),
    ("manual_seed", ("x",)), ("manual_seed_all", (3,)), ("seed", ()), ("seed_all", ()), ("initial_seed", ()),
    ("get_rng_state", ()), ("get_rng_state_all", ()), ("set_rng_state_all", ([],)), ("synchronize", ()),
    ("empty_cache", ()), ("memory_allocated", ()), ("max_memory_allocated", ()), ("memory_reserved", ()),
    ("max_memory_reserved", ()), ("current_device", ()), ("set_device", (0,)), ("get_device_name", ()),
    ("get_device_name", (0,)), ("get_device_properties", (0,)), ("get_device_capability", ()),
    ("mem_get_info", ()), ("current_stream", ()), ("default_stream", ()), ("init", ()), ("ipc_collect", ()),
]


@pytest.mark.parametrize("name,args", CUDA_CALLS, ids=[f"{n}{a}" for n, a in CUDA_CALLS])
def test_cuda_calls(name, args):
    same_outcome(lambda: getattr(torch.cuda, name)(*args), lambda: getattr(lg.cuda, name)(*args),
                 compare_message=name not in ("set_device", "manual_seed"))


def test_cuda_memory_stats_and_device_context():
    assert dict(lg.cuda.memory_stats()) == dict(torch.cuda.memory_stats()) == {}

    def enter(mod, idx):
        with mod.cuda.device(idx):
            return 1
    for idx in (0, -1, None):
        same_outcome(lambda: enter(torch, idx), lambda: enter(lg, idx))


def test_gpu_moves_raise_torchs_assertion():
    for fn in (lambda m: m.ones(2).cuda(), lambda m: m.ones(2).to("cuda"), lambda m: m.zeros(1, device="cuda:0"),
               lambda m: m.tensor([1.0], device="cuda"), lambda m: m.nn.Linear(1, 1).cuda()):
        assert same_outcome(lambda: fn(torch), lambda: fn(lg), compare_message=True)[0] == "raise"


def test_backends_flags():
    for path in ("cudnn.enabled", "cudnn.benchmark", "cudnn.deterministic", "cudnn.allow_tf32",
                 "cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
                 "cuda.matmul.allow_bf16_reduced_precision_reduction", "mkldnn.enabled", "mkldnn.deterministic"):
        t, m = torch.backends, lg.backends
        for part in path.split("."):
            t, m = getattr(t, part), getattr(m, part)
        assert t == m, path
    for call in ("cudnn.is_available", "cudnn.version", "mps.is_available", "mps.is_built", "cuda.is_built",
                 "cuda.flash_sdp_enabled", "cuda.math_sdp_enabled", "cuda.mem_efficient_sdp_enabled"):
        mod, fn = call.split(".")
        assert getattr(getattr(torch.backends, mod), fn)() == getattr(getattr(lg.backends, mod), fn)(), call
    same_outcome(lambda: torch.backends.mps.is_macos_or_newer(14, 0), lambda: lg.backends.mps.is_macos_or_newer(14, 0),
                 compare_message=True)
    same_outcome(lambda: torch.backends.cuda.matmul.bogus, lambda: lg.backends.cuda.matmul.bogus,
                 compare_message=True)


def test_backends_import_forms_and_writes():
    import leafgrad.backends.cudnn as cudnn
    old = cudnn.benchmark, cudnn.deterministic
    try:
        cudnn.benchmark, cudnn.deterministic = True, True
        assert lg.backends.cudnn.benchmark is True and lg.backends.cudnn.deterministic is True
        with lg.backends.cudnn.flags(enabled=False):
            assert lg.backends.cudnn.enabled is False
        assert lg.backends.cudnn.enabled is True
    finally:
        cudnn.benchmark, cudnn.deterministic = old


@pytest.fixture
def precision():
    saved = torch.get_float32_matmul_precision(), lg.get_float32_matmul_precision()
    yield
    torch.set_float32_matmul_precision(saved[0])
    torch.get_float32_matmul_precision()  # (torch 2.13 mixes up its two precision APIs unless read after a write)
    lg.set_float32_matmul_precision(saved[1])


# (torch 2.13 itself raises "mix of the legacy and new APIs" on reading the precision back after some
# sequences of writes in one process, e.g. a write of "highest" after "high": those sequences are
# checked on leafgrad alone below)
@pytest.mark.parametrize("steps", [["high"], ["medium"], ["high", "bogus"], [3], ["tf32=True"]])
def test_float32_matmul_precision_and_tf32(precision, steps):
    for step in steps:
        if step in ("tf32=True", "tf32=False"):
            torch.backends.cuda.matmul.allow_tf32 = lg.backends.cuda.matmul.allow_tf32 = step == "tf32=True"
            continue
        same_outcome(lambda: torch.set_float32_matmul_precision(step),
                     lambda: lg.set_float32_matmul_precision(step), compare_message=True)
        assert lg.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    assert lg.get_float32_matmul_precision() == torch.get_float32_matmul_precision()
    assert lg.backends.cuda.matmul.allow_tf32 == torch.backends.cuda.matmul.allow_tf32
    assert lg.backends.cuda.matmul.fp32_precision == torch.backends.cuda.matmul.fp32_precision


def test_float32_matmul_precision_back_to_highest(precision):
    lg.set_float32_matmul_precision("high")
    lg.set_float32_matmul_precision("highest")
    assert lg.backends.cuda.matmul.allow_tf32 is False and lg.backends.cuda.matmul.fp32_precision == "ieee"
    lg.backends.cuda.matmul.allow_tf32 = True
    assert lg.get_float32_matmul_precision() == "high"
    lg.backends.cuda.matmul.allow_tf32 = False
    assert lg.get_float32_matmul_precision() == "highest"


ACCEL = ["is_available", "current_accelerator", "device_count", "current_device_index", "synchronize",
         "current_stream", "empty_cache", "memory_allocated", "max_memory_allocated", "memory_stats",
         "reset_peak_memory_stats", "get_memory_info", "get_device_capability"]


@pytest.mark.parametrize("name", ACCEL)
def test_accelerator(name):
    same_outcome(lambda: getattr(torch.accelerator, name)(), lambda: getattr(lg.accelerator, name)(),
                 compare_message=True)


def test_accelerator_device_selection_idiom():
    def pick(m):
        return m.accelerator.current_accelerator().type if m.accelerator.is_available() else "cpu"
    assert pick(lg) == pick(torch) == "cpu"
    same_outcome(lambda: torch.accelerator.set_device_index(0), lambda: lg.accelerator.set_device_index(0))
    same_outcome(lambda: torch.accelerator.device_index(None).__enter__(),
                 lambda: lg.accelerator.device_index(None).__enter__())
    same_outcome(lambda: torch.accelerator.device_index(0).__enter__(),
                 lambda: lg.accelerator.device_index(0).__enter__())


@pytest.fixture
def default_device():
    yield
    torch.set_default_device(None)
    lg.set_default_device(None)


@pytest.mark.parametrize("dev", ["cpu", "cuda", None, "bogus"])
def test_set_default_device(default_device, dev):
    same_outcome(lambda: torch.set_default_device(dev), lambda: lg.set_default_device(dev))
    same_outcome(lambda: str(torch.get_default_device()), lambda: str(lg.get_default_device()), compare_message=True)
    for fn in (lambda m: m.zeros(2).tolist(), lambda m: m.tensor([1.0]).tolist(), lambda m: m.ones(1, 2).tolist(),
               lambda m: m.arange(3).tolist()):
        same_outcome(lambda: fn(torch), lambda: fn(lg), compare_message=True)


@pytest.fixture
def default_dtype():
    yield
    torch.set_default_dtype(torch.float32)
    lg.set_default_dtype(lg.float32)


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "int64", "complex64", "bool", "py-float",
                                  "py-int"])
def test_set_default_dtype(default_dtype, name):
    def arg(m):
        return {"py-float": float, "py-int": int}.get(name) or getattr(m, name)
    same_outcome(lambda: torch.set_default_dtype(arg(torch)), lambda: lg.set_default_dtype(arg(lg)))
    assert repr(lg.get_default_dtype()) == repr(torch.get_default_dtype())
    assert repr(lg.tensor(1.5).dtype) == repr(torch.tensor(1.5).dtype)
    assert repr(lg.zeros(1).dtype) == repr(torch.zeros(1).dtype)
    assert repr(lg.tensor([1, 2]).dtype) == repr(torch.tensor([1, 2]).dtype)
