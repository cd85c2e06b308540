"""torch.cuda's device queries, Stream and Event, and sdk.version.cuda: without a GPU they
raise RuntimeError naming why (or answer "none", where torch does), and against the
host-memory stand-in backend (fake_backend.cpp) they return what the backend reports."""

from __future__ import annotations

import shutil

import pytest

import sdk
import sdk.cuda
from tests._support import build_once, run_folder
from tests.cuda.conftest import build_fake_backend, gpu_available, run_python

no_gpu = pytest.mark.skipif(gpu_available(), reason="a CUDA GPU is visible here")


@pytest.fixture(scope="module")
def fake_backend(tmp_path_factory):
    return build_once(run_folder(tmp_path_factory, "fake_backend"), build_fake_backend)


@no_gpu
@pytest.mark.parametrize(
    "call",
    [
        lambda: sdk.cuda.get_device_properties(),
        lambda: sdk.cuda.get_device_properties(0),
        lambda: sdk.cuda.get_device_capability("cuda:0"),
        lambda: sdk.cuda.get_device_name(),
        lambda: sdk.cuda.mem_get_info(),
        lambda: sdk.cuda.Stream(),
        lambda: sdk.cuda.Event(enable_timing=True),
        lambda: sdk.cuda.current_stream(),
        lambda: sdk.cuda.default_stream(),
    ],
)
def test_without_a_gpu_each_query_raises_runtime_error_with_the_reason(call):
    with pytest.raises(RuntimeError, match="CUDA is not available: .+") as info:
        call()
    assert sdk.cuda.unavailable_reason() in str(info.value)


@no_gpu
def test_without_a_gpu_the_none_answers_are_torchs():
    assert sdk.cuda.get_arch_list() == []
    assert sdk.cuda.is_bf16_supported() is False
    assert sdk.cuda.is_bf16_supported(including_emulation=False) is False


def test_bad_device_arguments_are_named():
    with pytest.raises(ValueError, match="expected a CUDA device, got cpu"):
        sdk.cuda.get_device_properties("cpu")
    with pytest.raises(TypeError, match="got bool"):
        sdk.cuda.get_device_capability(True)


def _run_on_fake(backend, code, **env):
    proc = run_python(code, SDK_CUDA_LIBRARY=str(backend), **env)
    assert proc.returncode == 0 and "OK" in proc.stdout, proc.stdout + proc.stderr[-3000:]
    return proc


@no_gpu
def test_device_queries_report_the_backends_answers(fake_backend):
    _run_on_fake(
        fake_backend,
        """
        import pytest, sdk, sdk.cuda as cuda
        assert cuda.is_available()
        assert cuda.get_device_capability() == (7, 5) == cuda.get_device_capability(0)
        assert cuda.get_device_name("cuda:0") == "SDK fake CUDA device 0"
        p = cuda.get_device_properties(sdk.device("cuda", 0))
        assert (p.major, p.minor, p.total_memory, p.multi_processor_count) == (7, 5, 16 << 30, 108)
        assert (p.warp_size, p.L2_cache_size, p.pci_bus_id, p.is_integrated) == (32, 40 << 20, 1, False)
        assert p.uuid.bytes[0] == 0xF0 and "SDK fake CUDA device 0" in repr(p)
        with pytest.raises(AttributeError, match="read-only"):
            p.major = 9
        free0, total = cuda.mem_get_info()
        x = sdk.ones(1 << 20, device="cuda")  # 4 MiB from the backend's allocator
        free1, _ = cuda.mem_get_info(0)
        assert total == 16 << 30 and free0 - free1 == 4 << 20, (free0, free1)
        assert cuda.get_arch_list() == ["sm_80", "sm_90"]
        # 7.5 computes bfloat16 through float32: supported only counting emulation
        assert cuda.is_bf16_supported() is True
        assert cuda.is_bf16_supported(including_emulation=False) is False
        with pytest.raises(ValueError, match="device index 3 is out of range"):
            cuda.get_device_properties(3)
        print("OK")
        """,
        SDK_FAKE_CUDA_CAPABILITY="7.5",
    )


@no_gpu
def test_properties_struct_of_an_older_caller_gets_its_prefix(fake_backend):
    # a caller built against a smaller sdk_cuda_device_properties: only its fields are written
    _run_on_fake(
        fake_backend,
        """
        import ctypes, sdk
        lib = ctypes.CDLL(sdk.get_library_path())
        class Head(ctypes.Structure):
            _fields_ = [("size", ctypes.c_uint32), ("reserved0", ctypes.c_uint32),
                        ("name", ctypes.c_char * 256), ("major", ctypes.c_int32)]
        buf = (ctypes.c_char * 512)()
        head = Head.from_buffer(buf)
        head.size = ctypes.sizeof(Head)
        ctypes.memset(ctypes.addressof(buf) + ctypes.sizeof(Head), 0x5A, 512 - ctypes.sizeof(Head))
        assert lib.sdk_cuda_get_device_properties(-1, ctypes.byref(head)) == 0
        assert head.name == b"SDK fake CUDA device 0" and head.major == 8
        assert head.size == ctypes.sizeof(Head)
        assert set(bytes(buf)[ctypes.sizeof(Head):]) == {0x5A}  # nothing past its size
        head.size = 4
        assert lib.sdk_cuda_get_device_properties(-1, ctypes.byref(head)) == 1  # VALUE
        print("OK")
        """,
    )


@no_gpu
def test_streams_and_events(fake_backend):
    _run_on_fake(
        fake_backend,
        """
        import pytest, sdk, sdk.cuda as cuda
        s = cuda.Stream()
        hi = cuda.Stream(priority=-1)
        assert s.cuda_stream and hi.cuda_stream and s != hi and s.device_index == 0
        assert s.device == sdk.device("cuda", 0) and s.query() is True
        s.synchronize()
        assert cuda.default_stream().cuda_stream == 0 == cuda.current_stream().cuda_stream
        with cuda.stream(s):
            assert cuda.current_stream() == s
            assert sdk.ones(3, device="cuda").sum().item() == 3.0  # SDK ops on the stream
        with hi:
            assert cuda.current_stream() == hi
        assert cuda.current_stream().cuda_stream == 0
        # the pools go round-robin (torch's): 32 streams, then the first again
        first = cuda.Stream(priority=5)
        again = [cuda.Stream().cuda_stream for _ in range(32)]
        assert first.cuda_stream not in again[:31] and again[31] == first.cuda_stream

        e0, e1 = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        assert e0.query() is True and "uninitialized" in repr(e0)
        e0.synchronize(); e0.wait(s)  # nothing recorded yet: no-ops, as torch
        with pytest.raises(RuntimeError, match="recorded"):
            e0.elapsed_time(e1)
        e0.record()
        e1.record(s)
        assert e1.query() and e0.elapsed_time(e1) >= 0.0
        e1.synchronize()
        s.wait_stream(hi)
        ev = hi.record_event()
        assert isinstance(ev, cuda.Event) and ev.query()
        s.wait_event(ev)
        plain = cuda.Event()
        plain.record()
        with pytest.raises(ValueError, match="enable_timing"):
            plain.elapsed_time(e1)
        with pytest.raises(ValueError, match="interprocess"):
            cuda.Event(enable_timing=True, interprocess=True)
        with pytest.raises(TypeError, match="priority must be an int"):
            cuda.Stream(priority="high")
        with pytest.raises(TypeError, match="expected a Stream"):
            e0.record(object())
        with pytest.raises(NotImplementedError):
            plain.ipc_handle()
        ext = cuda.ExternalStream(s.cuda_stream)
        assert isinstance(ext, cuda.Stream) and ext == s
        print("OK")
        """,
    )


@no_gpu
def test_events_and_streams_of_another_device(fake_backend):
    _run_on_fake(
        fake_backend,
        """
        import pytest, sdk.cuda as cuda
        s1 = cuda.Stream(device=1)
        assert s1.device_index == 1
        e = cuda.Event()
        e.record(s1)
        assert e.device_index == 1
        with pytest.raises(ValueError, match="event is on cuda:1 but the stream is on cuda:0"):
            e.record(cuda.Stream(0))
        with pytest.raises(ValueError, match="out of range"):
            cuda.Stream(device="cuda:2")
        print("OK")
        """,
        SDK_FAKE_CUDA_DEVICES="2",
    )


def _backend_copy(fake_backend, folder, record):
    """The stand-in backend in `folder`, with `record` as its build record (None: none)."""
    lib = folder / "libsdk_cuda.so"
    shutil.copy(fake_backend, lib)
    if record is not None:
        (folder / "libsdk_cuda.version").write_text(record)
    return lib


@pytest.mark.parametrize(
    "record, expected",
    [("12.4\n", "12.4"), ("13.0", "13.0"), (None, None), ("garbage\n", None), ("12.\n", None)],
)
def test_version_cuda_is_the_build_record(fake_backend, tmp_path, record, expected):
    lib = _backend_copy(fake_backend, tmp_path, record)
    proc = run_python(
        "import sdk, sdk.version, sdk.backends.cuda as b; "
        "print(repr(sdk.version.cuda), b.is_built(), sdk.cuda.is_available())",
        SDK_CUDA_LIBRARY=str(lib),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == [repr(expected), str(expected is not None), "True"]


def test_version_cuda_needs_no_backend_load(tmp_path):
    # the record alone answers: the library beside it is not even a loadable file
    (tmp_path / "libsdk_cuda.so").write_text("not a library")
    (tmp_path / "libsdk_cuda.version").write_text("12.8\n")
    proc = run_python(
        "import sdk.version, sdk.cuda; print(sdk.version.cuda, sdk.cuda.is_available())",
        SDK_CUDA_LIBRARY=str(tmp_path / "libsdk_cuda.so"),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["12.8", "False"]


def test_version_cuda_loads_no_cuda_library():
    proc = run_python(
        """
        import sdk.version, sdk.backends.cuda as b
        print(sdk.version.cuda, b.is_built())
        maps = open("/proc/self/maps").read()
        print("libcudart" in maps, "libsdk_cuda" in maps)
        """
    )
    assert proc.returncode == 0, proc.stderr
    version, built, cudart, backend = proc.stdout.split()
    assert built == str(version != "None")
    assert (cudart, backend) == ("False", "False")
