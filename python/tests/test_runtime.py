"""Devices, backends, the load report and plugin loading."""

import pytest

import xdispatch as xd


def test_devices_and_backends():
    devs = xd.devices()
    assert xd.cpu() in devs and xd.default_device() == xd.cpu()
    names = {b["name"] for b in xd.backends()}
    assert "cpu" in names
    cpu = next(b for b in xd.backends() if b["name"] == "cpu")
    assert cpu["host_reference"] and cpu["device_count"] >= 1
    assert xd.device("cpu").type == "cpu" and xd.device("cpu", 0).index == 0
    assert xd.cpu().host_pointers


def test_load_report_rows():
    rows = xd.load_report()
    by_name = {r["name"]: r for r in rows}
    assert by_name["cpu"]["status"] == "loaded"
    assert {"path", "status", "reason", "abi", "version", "family", "options"} <= set(rows[0])
    if "levelzero" in by_name:  # built here without a driver
        assert by_name["levelzero"]["status"] in ("loaded", "unavailable")
    assert "cpu" in xd.format_load_report()


def test_load_plugin_reports_a_missing_file():
    row = xd.load_plugin("/nonexistent/libxd_plugin_nothing.so")
    assert row["status"] != "loaded" and row["path"].endswith("libxd_plugin_nothing.so")


def test_op_names_kernels_and_memory_stats():
    assert "add" in xd.op_names()
    assert any(k["op"] == "add" and k["backend"] == "cpu" for k in xd.kernels())
    x = xd.ones(1024)
    assert xd.memory_stats("cpu")["allocated"] >= x.nbytes
    xd.synchronize("cpu")
    xd.empty_cache()


def test_bad_device_strings_raise_typed_errors():
    with pytest.raises(xd.BackendError, match="nosuchbackend"):
        xd.device("nosuchbackend:0")
    with pytest.raises(xd.DeviceError):
        xd.device("cpu:99")
    with pytest.raises(xd.ValueError):
        xd.device("cpu:x")
    with pytest.raises(TypeError, match="expected an xdispatch.device or a string"):
        xd.zeros(2, device=3)


def test_version_is_the_loaded_librarys():
    import re
    assert re.fullmatch(r"\d+\.\d+\.\d+", xd.__version__)
    assert re.fullmatch(r"\d+\.\d+", xd.plugin_abi_version)
    assert re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?|unknown", xd.build_commit)
