"""cutune.kernel_tuner without a GPU: Kernel Tuner's return formats, options, cache files (read, resumed, written as
Kernel Tuner writes them), simulation mode, get_best_config, the T4 writers, and what is refused by name."""

import importlib
import json
import math
from collections import OrderedDict

import numpy
import pytest

import cutune
import cutune.kernel_tuner as kernel_tuner
from cutune.kernel_tuner import _cache, _records, _strategy, file_utils, util

VECTOR_ADD = """
__global__ void vector_add(float *c, float *a, float *b, int n) {
    int i = blockIdx.x * block_size_x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
"""
SIZES = [128 + 64 * i for i in range(15)]


def vector_add_args(size=1000):
    a = numpy.arange(size, dtype=numpy.float32)
    b = numpy.full(size, 0.5, dtype=numpy.float32)
    return [numpy.zeros_like(a), a, b, numpy.int32(size)]


def kt_cache_text(device="NVIDIA H200", closed=True, failed=(256,)):
    """A cache as Kernel Tuner 1.4 writes it: the header with indent="", a record per line, "}\\n}" when closed."""
    header = {"device_name": device, "kernel_name": "vector_add", "problem_size": 1000,
              "tune_params_keys": ["block_size_x"], "tune_params": {"block_size_x": SIZES}, "objective": "time",
              "cache": {}}
    text = json.dumps(header, indent="")[:-3]
    for bx in SIZES:
        if bx in failed:
            record = {"block_size_x": bx, "__error__": "CompilationFailedConfig", "compile_time": 1.5,
                      "verification_time": 0, "benchmark_time": 0, "timestamp": "2026-11-29 00:00:00+00:00"}
        else:
            t = 0.01 + abs(bx - 512) / 1e5  # fastest at 512
            record = {"block_size_x": bx, "time": t, "times": [t] * 7, "compile_time": 100.0,
                      "verification_time": 0.5, "benchmark_time": 1.0, "timestamp": "2026-11-29 00:00:00+00:00"}
        text += "\n" + json.dumps({str(bx): record})[1:-1] + ","
    return text[:-1] + "}\n}" if closed else text


def test_one_line_to_switch():
    from cutune.kernel_tuner import run_kernel, tune_kernel
    from cutune.kernel_tuner.file_utils import store_metadata_file, store_output_file
    from cutune.kernel_tuner.util import get_best_config, get_config_string
    assert kernel_tuner.tune_kernel is tune_kernel and kernel_tuner.run_kernel is run_kernel
    assert kernel_tuner.util.get_best_config is get_best_config and callable(get_config_string)
    assert callable(store_output_file) and callable(store_metadata_file)


@pytest.mark.parametrize("closed", [True, False])
def test_cache_read_as_kernel_tuner_reads_it(tmp_path, closed):
    path = tmp_path / "vector_add.json"
    path.write_text(kt_cache_text(closed=closed))
    doc = _cache.read_cache(str(path))
    assert doc["tune_params_keys"] == ["block_size_x"] and len(doc["cache"]) == len(SIZES)
    assert isinstance(doc["cache"]["256"]["__error__"], util.CompilationFailedConfig)
    assert doc["cache"]["512"]["time"] == pytest.approx(0.01)


def test_old_cache_failure_in_time_field(tmp_path):
    path = tmp_path / "old.json"
    text = kt_cache_text(failed=()).replace('"time": 0.01,', '"time": "RuntimeFailedConfig",')
    path.write_text(text)
    record = _cache.read_cache(str(path))["cache"]["512"]
    assert isinstance(record["__error__"], util.RuntimeFailedConfig)


def test_cache_written_as_kernel_tuner_writes_it(tmp_path):
    path = tmp_path / "c.json"
    header = {"device_name": "NVIDIA H200", "kernel_name": "k", "problem_size": [64, 32],
              "tune_params_keys": ["bx", "f"], "tune_params": {"bx": [32, 64], "f": [0.5]}, "objective": "time",
              "cache": {}}
    records = {"32,0.5": {"bx": 32, "f": 0.5, "time": 1.0, "times": [1.0, 1.0], "GB/s": numpy.float64(3.0)},
               "64,0.5": {"bx": 64, "f": 0.5, "__error__": util.RuntimeFailedConfig(), "compile_time": 2.0}}
    _cache.write_cache(str(path), header, records, None)
    text = path.read_text()
    assert text.startswith('{\n"device_name": "NVIDIA H200",\n') and text.endswith("}\n}")
    assert '\n"64,0.5": {"bx": 64, "f": 0.5, "__error__": "RuntimeFailedConfig", "compile_time": 2.0}' in text
    doc = json.loads(text)
    assert list(doc["cache"]) == ["32,0.5", "64,0.5"] and doc["cache"]["32,0.5"]["GB/s"] == 3.0
    # Resumed: the old records stay first, a new one is appended, none twice.
    more = {"64,0.5": {"bx": 64, "f": 0.5, "time": 9.0}, "96,0.5": {"bx": 96, "f": 0.5, "time": 2.0}}
    _cache.write_cache(str(path), header, more, _cache.read_cache(str(path)))
    doc = json.loads(path.read_text())
    assert list(doc["cache"]) == ["32,0.5", "64,0.5", "96,0.5"]
    assert doc["cache"]["64,0.5"]["__error__"] == "RuntimeFailedConfig"
    # cutune's own reader of Kernel Tuner caches reads it back.
    db = tmp_path / "c.db"
    counts = cutune.db.import_(path, db, device="NVIDIA H200", shape="64x32")
    assert counts["measurements"] == 3


def test_cache_checks_before_resuming(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(kt_cache_text())
    doc = _cache.read_cache(str(path))
    _cache.check_cache(doc, str(path), "NVIDIA H200", "vector_add", numpy.int32(1000), ["block_size_x"])
    with pytest.raises(ValueError, match="different device"):
        _cache.check_cache(doc, str(path), "NVIDIA H100", "vector_add", 1000, ["block_size_x"])
    with pytest.raises(ValueError, match="different problem_size"):
        _cache.check_cache(doc, str(path), None, "vector_add", 2000, ["block_size_x"])
    with pytest.raises(ValueError, match="different tunable parameters"):
        _cache.check_cache(doc, str(path), None, "vector_add", 1000, ["block_size_y"])
    bad = tmp_path / "bad.json"
    bad.write_text('{"cache": 3')
    with pytest.raises(cutune.InputError, match="not a Kernel Tuner cache"):
        _cache.read_cache(str(bad))


def simulate(tmp_path, **options):
    path = tmp_path / "vector_add.json"
    if not path.exists():
        path.write_text(kt_cache_text())
    return kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, 1000, vector_add_args(), {"block_size_x": SIZES},
                                    cache=str(tmp_path / "vector_add"), simulation_mode=True, db=tmp_path / "k.db",
                                    **options)


def test_simulation_returns_results_and_env(tmp_path, capsys):
    metrics = OrderedDict()
    metrics["GFLOP/s"] = lambda p: (1000 / 1e9) / (p["time"] / 1e3)
    metrics["GB/s"] = "(1000*4*3/1e9) / (time/1000)"
    metrics["bytes per flop"] = "GB/s / GFLOP/s"  # sees the earlier metrics, names with spaces and slashes
    results, env = simulate(tmp_path, metrics=metrics)
    assert len(results) == len(SIZES)
    ok = [r for r in results if "__error__" not in r]
    failed = [r for r in results if "__error__" in r]
    assert len(failed) == 1 and failed[0]["block_size_x"] == 256 and "GFLOP/s" not in failed[0]
    for r in ok:
        assert r["GFLOP/s"] == pytest.approx(1e-6 / (r["time"] / 1e3))
        assert r["GB/s"] == pytest.approx(12e-6 / (r["time"] / 1e3))
        assert r["bytes per flop"] == pytest.approx(12.0)
    assert env["best_config"]["block_size_x"] == 512
    assert env["simulation"] and env["device_name"] == "NVIDIA H200"
    assert env["simulated_time"] == pytest.approx(sum(r.get("compile_time", 0) + r.get("verification_time", 0) +
                                                      r.get("benchmark_time", 0) for r in results))
    json.dumps([results, env])  # what the examples store
    out = capsys.readouterr().out
    assert "block_size_x=512, time=0.010" in out and "BEST PERFORMING CONFIGURATION FOR OBJECTIVE time:" in out


def test_simulation_objective_higher_is_better(tmp_path):
    metrics = {"GFLOP/s": lambda p: 1.0 / p["time"], "slowness": "time * 2"}
    _, env = simulate(tmp_path, metrics=metrics, objective="GFLOP/s", quiet=True)
    assert env["best_config"]["block_size_x"] == 512
    with pytest.raises(ValueError, match="objective_higher_is_better"):
        simulate(tmp_path, metrics=metrics, objective="slowness", quiet=True)
    _, env = simulate(tmp_path, metrics=metrics, objective="slowness", objective_higher_is_better=True, quiet=True)
    assert env["best_config"]["block_size_x"] == SIZES[-1]


def test_simulation_random_sample(tmp_path):
    results, _ = simulate(tmp_path, strategy="random_sample", strategy_options={"fraction": 0.3}, quiet=True)
    assert len(results) == math.ceil(len(SIZES) * 0.3)
    assert len({r["block_size_x"] for r in results}) == len(results)
    results, _ = simulate(tmp_path, strategy="random_sample", strategy_options={"max_fevals": 4}, quiet=True)
    assert len(results) == 4
    with pytest.raises(cutune.InputError, match="replays brute_force and random_sample"):
        simulate(tmp_path, strategy="genetic_algorithm", quiet=True)


def test_simulation_needs_the_cache(tmp_path):
    with pytest.raises(ValueError, match="requires an existing cachefile"):
        kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, 1000, vector_add_args(), {"block_size_x": SIZES},
                                 cache=str(tmp_path / "none"), simulation_mode=True, db=tmp_path / "k.db")
    (tmp_path / "vector_add.json").write_text(kt_cache_text())
    with pytest.raises(ValueError, match="not in cache"):
        kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, 1000, vector_add_args(), {"block_size_x": [64] + SIZES},
                                 cache=str(tmp_path / "vector_add"), simulation_mode=True, db=tmp_path / "k.db")


def test_records_from_the_database(tmp_path):
    """What tune_kernel reads back after tuning: the database's measurements in Kernel Tuner's result form."""
    path = tmp_path / "vector_add.json"
    path.write_text(kt_cache_text())
    db = tmp_path / "k.db"
    cutune.db.import_(path, db, device="NVIDIA H200", shape="1000")
    records = _records.stored_records(str(db), "vector_add", "1000", "NVIDIA H200", "")
    results = [_records.result_of(r, ["block_size_x"]) for r in records]
    assert sorted(r["block_size_x"] for r in results) == SIZES
    ok = next(r for r in results if r["block_size_x"] == 512)
    assert list(ok)[:3] == ["block_size_x", "time", "times"] and ok["time"] == pytest.approx(0.01)
    assert len(ok["times"]) == 7 and ok["compile_time"] == 100.0 and "timestamp" in ok
    failed = next(r for r in results if r["block_size_x"] == 256)
    assert isinstance(failed["__error__"], util.CompilationFailedConfig) and "time" not in failed
    assert _records.stored_records(str(db), "vector_add", "2000", "NVIDIA H200", "") == []


def test_phases_line_says_what_bound_the_run():
    env = {"cutune_evaluated": 100, "cutune_phases": {"wall_s": 50.0, "startup_s": 2.5, "compile_wait_s": 46.0,
                                                      "measure_s": 1.0, "compile_cpu_s": 640.0}}
    assert _records.phases_line(env) == (
        "cutune: 100 configurations measured in 50.0 s: waiting for compiles 46.0 s (92%), measuring 1.0 s (2%), "
        "start-up 2.5 s (5%); NVRTC 640.0 s summed over the compile threads (6.40 s a configuration)")
    assert _records.phases_line({"cutune_phases": {}}) == "cutune: nothing was measured"


def test_get_best_config_and_config_string():
    results = [{"bx": 1, "time": 2.0, "GB/s": 10.0}, {"bx": 2, "__error__": util.RuntimeFailedConfig()},
               {"bx": 3, "time": 1.0, "GB/s": 20.0}, {"bx": 4, "time": "InvalidConfig"}]
    assert util.get_best_config(results, "time")["bx"] == 3
    assert util.get_best_config(results, "GB/s", objective_higher_is_better=True)["bx"] == 3
    assert util.get_config_string(results[0]) == "bx=1, time=2.000, GB/s=10.000"
    assert util.get_config_string(results[0], ["bx", "time"], {"time": "ms"}) == "bx=1, time=2.000ms"
    assert str(util.CompilationFailedConfig()) == "CompilationFailedConfig" == util.CompilationFailedConfig()
    assert util.get_objective_defaults(None, None) == ("time", False)
    assert util.get_objective_defaults("GB/s", None) == ("GB/s", True)


def test_strategies():
    assert _strategy.choose(None, None, 100) == ("exhaustive", 0, 0.0)
    assert _strategy.choose("brute_force", None, 100) == ("exhaustive", 0, 0.0)
    assert _strategy.choose("random_sample", None, 100) == ("random", 10, 0.0)  # Kernel Tuner's default fraction 0.1
    assert _strategy.choose("random_sample", {"fraction": 0.25}, 10) == ("random", 3, 0.0)
    assert _strategy.choose("random_sample", {"max_fevals": 7}, 100) == ("random", 7, 0.0)
    assert _strategy.choose("genetic_algorithm", {"max_fevals": 500, "time_limit": 60}, 100) == ("genetic", 0, 60.0)
    assert _strategy.choose("portfolio", {"max_fevals": 20}, 100) == ("portfolio", 20, 0.0)
    assert _strategy.choose("pso", None, 100, say=False)[0] == cutune._cutune.default_strategy()
    with pytest.raises(cutune.InputError, match=r"\['popsize'\] has no counterpart"):
        _strategy.choose("genetic_algorithm", {"popsize": 20}, 100)
    with pytest.raises(cutune.InputError, match="strategy module"):
        _strategy.choose(object(), None, 100)
    with pytest.raises(ValueError, match="Unkown strategy"):
        _strategy.choose("no_such", None, 100)


def test_problem_size_names_a_parameter(tmp_path):
    """Kernel Tuner's reduction: problem_size "num_blocks" with grid_div_x=[]: one block per num_blocks."""
    params = {"block_size_x": [64, 128], "num_blocks": [32, 64]}
    x = numpy.ones(4096, numpy.float32)
    path = cutune.kernel_spec("sum_floats", VECTOR_ADD, "num_blocks", [numpy.zeros(64, numpy.float32), x,
                              numpy.int32(4096)], params, folder=tmp_path, grid_div_x=[])
    spec = json.loads(path.read_text())
    assert spec["grid"] == ["(num_blocks)", 1, 1] and spec["block"] == ["block_size_x", 1, 1]
    assert len(cutune.space(spec=path, shape="1")) == 4


def test_verify_function_marks_outputs_without_comparing(tmp_path):
    args = vector_add_args()
    path = cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, {"block_size_x": SIZES}, folder=tmp_path,
                              answer=[args[1] + args[2], None, None, None], compare=False)
    spec = json.loads(path.read_text())
    assert spec["verify"] == {"mode": "none"}
    assert spec["arguments"][0]["output"] and "expected" not in spec["arguments"][0]


def test_what_has_no_counterpart_is_refused(tmp_path):
    call = dict(kernel_name="vector_add", kernel_source=VECTOR_ADD, problem_size=1000, arguments=vector_add_args(),
                tune_params={"block_size_x": SIZES}, db=tmp_path / "k.db")
    for key, words in (("texmem_args", "textures"), ("observers", "kernel time only"),
                       ("objectives", "one objective"), ("defines", "#define"), ("compiler", "NVRTC")):
        with pytest.raises(cutune.InputError, match=f"'{key}' has no counterpart in cutune: .*{words}"):
            kernel_tuner.tune_kernel(**call, **{key: {"x": 1}})
    with pytest.raises(cutune.InputError, match="lang 'OpenCL'"):
        kernel_tuner.tune_kernel(**call, lang="OpenCL")
    with pytest.raises(cutune.InputError, match="a function generating the code"):
        kernel_tuner.tune_kernel(**{**call, "kernel_source": lambda p: VECTOR_ADD})
    with pytest.raises(cutune.InputError, match="a list of files"):
        kernel_tuner.tune_kernel(**{**call, "kernel_source": ["host.cu", "kernel.cu"]})
    with pytest.raises(cutune.InputError, match="strategy module"):
        kernel_tuner.tune_kernel(**call, strategy=util)
    with pytest.raises(cutune.InputError, match="answer: 1 entries for 4 arguments"):
        kernel_tuner.tune_kernel(**call, answer=[None])
    with pytest.raises(cutune.InputError, match="a function of the parameters"):
        kernel_tuner.run_kernel("vector_add", VECTOR_ADD, lambda p: (1000,), vector_add_args(), {"block_size_x": 128})


def test_t4_output_and_metadata_files(tmp_path):
    results = [{"block_size_x": 128, "time": 1.0, "times": [1.0, 1.0], "compile_time": 5.0, "verification_time": 0,
                "benchmark_time": 2.0, "GB/s": 3.0, "timestamp": "t", "strategy_time": 0.1, "framework_time": 0.2},
               {"block_size_x": 256, "__error__": util.CompilationFailedConfig(), "compile_time": 5.0,
                "verification_time": 0, "benchmark_time": 0, "timestamp": "t", "strategy_time": 0, "framework_time": 0}]
    file_utils.store_output_file(str(tmp_path / "out" / "vector_add"), results, {"block_size_x": [128, 256]})
    doc = json.loads((tmp_path / "out" / "vector_add.json").read_text())
    assert doc["schema_version"] == "1.0.0" and doc["metadata"] == {"timeunit": "milliseconds"}
    first, second = doc["results"]
    assert first["configuration"] == {"block_size_x": 128} and first["invalidity"] == "correct"
    assert first["times"]["runtimes"] == [1.0, 1.0] and first["times"]["compilation"] == 5.0
    assert {m["name"]: m["value"] for m in first["measurements"]} == {"time": 1.0, "GB/s": 3.0}
    assert second["invalidity"] == "compile" and second["measurements"] == []
    file_utils.store_metadata_file(str(tmp_path / "meta"))
    meta = json.loads((tmp_path / "meta.json").read_text())
    assert meta["schema_version"] == "1.0.0"
    assert meta["metadata"]["environment"]["requirements"][0].startswith("cutune==")


def test_submodules_scripts_import():
    """kernel_tuner.strategies.NAME stands for the strategy's name; the observers, accuracy and kernelbuilder
    modules have no counterpart and say so when imported."""
    assert kernel_tuner.strategies.minimize == "minimize" and kernel_tuner.strategies.brute_force == "brute_force"
    with pytest.raises(AttributeError, match="no strategy 'nonsense'"):
        kernel_tuner.strategies.nonsense
    for module, words in (("observers.nvml", "kernel time only"), ("accuracy", "TunablePrecision"),
                          ("kernelbuilder", "PythonKernel")):
        with pytest.raises(cutune.InputError, match=words):
            importlib.import_module("cutune.kernel_tuner." + module)


def test_env_holds_plain_numbers(tmp_path):
    """expdist.py stores (results, env) with json.dump; its problem size is numpy.int32."""
    (tmp_path / "vector_add.json").write_text(kt_cache_text())
    results, env = kernel_tuner.tune_kernel("vector_add", VECTOR_ADD, numpy.int32(1000), vector_add_args(),
                                            {"block_size_x": SIZES}, cache=str(tmp_path / "vector_add"),
                                            simulation_mode=True, db=tmp_path / "k.db", quiet=True)
    assert env["problem_size"] == 1000 and type(env["problem_size"]) is int
    json.dumps([results, env])


def tile_fits(block_size_x, tile):
    """A restriction of parameters by name, as a def."""
    return block_size_x * tile <= 512


def test_restrictions_as_functions(tmp_path):
    """Kernel Tuner's function restrictions are read back into the spec's text: of the configuration's dict, of
    parameters by name, as a def; a function whose expression uses the dict otherwise is refused."""
    params = {"block_size_x": [64, 128, 256, 512], "tile": [1, 2, 4]}
    args = vector_add_args()
    counts = []
    for restriction in ("block_size_x * tile <= 512", lambda p: p["block_size_x"] * p["tile"] <= 512,
                        [lambda block_size_x, tile: block_size_x * tile <= 512], tile_fits):
        path = cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, params, folder=tmp_path / str(len(counts)),
                                  restrictions=restriction)
        assert json.loads(path.read_text())["constraints"] == ["block_size_x * tile <= 512"]
        counts.append(len(cutune.space(spec=path)))
    assert counts == [9] * 4
    with pytest.raises(cutune.InputError, match="cannot be read into a spec"):
        cutune.kernel_spec("vector_add", VECTOR_ADD, 1000, args, params, folder=tmp_path / "x",
                           restrictions=lambda p: sum(p.values()) < 600)
