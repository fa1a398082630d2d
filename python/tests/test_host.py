"""The Python package without a GPU: spaces, lookups in an imported database, database commands, errors. What the
package answers must be what the `tune` command answers."""

import json
from pathlib import Path

import pytest

import cutune
from conftest import has_gpu


def test_version_and_kernels():
    assert cutune.__version__.count(".") == 2
    names = [k["name"] for k in cutune.kernels()]
    assert "transpose" in names and "gemm_bf16" in names
    gemm = next(k for k in cutune.kernels() if k["name"] == "gemm_bf16")
    assert gemm["shape"] == ["M", "N", "K"] and "BM" in gemm["parameters"] and len(gemm["version"]) == 16


def test_space_is_what_tune_space_counts(tune_program):
    space = cutune.space("gemm_bf16", "4096x4096x4096")
    out = tune_program("space", "--kernel", "gemm_bf16", "--shape", "4096x4096x4096")
    assert out.returncode == 0, out.stderr
    assert str(space) == out.stdout.strip()
    assert space.counts["valid"] == len(space) > 1000
    assert space.kernel == "gemm_bf16" and space.shape == "4096x4096x4096"


def test_space_is_a_sequence_of_configurations(tune_program):
    space = cutune.space("transpose", (8192, 8192))
    listed = tune_program("space", "--kernel", "transpose", "--shape", "8192x8192", "--list").stdout.splitlines()[:-1]
    assert len(space) == len(listed)
    assert [space.text(i) for i in range(len(space))] == listed
    first = space[0]
    assert list(first) == space.parameters
    assert ",".join(f"{k}={v}" for k, v in first.items()) == listed[0]
    assert space[-1] == space[len(space) - 1]
    assert space[1:3] == [space[1], space[2]]
    assert sum(1 for _ in space) == len(space)
    with pytest.raises(IndexError):
        space[len(space)]


def test_space_where_and_shard():
    whole = cutune.space("transpose", "8192x8192")
    tiles32 = cutune.space("transpose", "8192x8192", where="TILE == 32")
    assert 0 < len(tiles32) < len(whole)
    assert all(c["TILE"] == 32 for c in tiles32)
    halves = [cutune.space("transpose", "8192x8192", shard=f"{i}/2") for i in (1, 2)]
    assert sum(len(h) for h in halves) == len(whole)
    assert whole[1] in whole and whole[1] in halves[1] and whole[1] not in halves[0]
    assert whole.text(1) in whole and whole[0] not in halves[1]
    assert {**whole[0], "TILE": 3} not in whole and {"TILE": 32} not in whole and 5 not in whole
    assert [c for c in whole if c["TILE"] != 32][0] not in tiles32


def _big_spec(tmp_path, pairs, constrained):
    """saxpy with `pairs` pairs of 4-valued parameters (16 * 16^pairs combinations), each pair constrained to
    P2i <= P2i+1 (10 of its 16 combinations) when `constrained`."""
    saxpy = Path(__file__).resolve().parents[2] / "examples" / "saxpy"
    spec = json.loads((saxpy / "saxpy.json").read_text())
    spec["name"] = "big"
    spec["source"] = str(saxpy / "saxpy.cu")
    spec["constraints"] = [f"P{2 * i} <= P{2 * i + 1}" for i in range(pairs)] if constrained else []
    for p in range(2 * pairs):
        spec["parameters"][f"P{p}"] = [1, 2, 3, 4]
    path = tmp_path / "big.json"
    path.write_text(json.dumps(spec))
    return path


def test_space_too_large_to_hold_is_counted_walked_and_sampled(tmp_path, tune_program):
    path = _big_spec(tmp_path, 5, False)  # 16 * 4^10 = 16777216 valid: counted exactly by the walk, not held
    space = cutune.space(spec=path, shape="1000")
    out = tune_program("space", "--spec", str(path), "--shape", "1000")
    assert str(space) == out.stdout.strip()
    assert not space.held and space.exact and len(space) == space.counts["valid"] == 16 * 4 ** 10
    with pytest.raises(cutune.InputError, match="more than cutune holds in memory: it cannot be indexed"):
        space[0]
    walked = iter(space)
    assert next(walked) == {"BLOCK": 128, "ITEMS": 1, **{f"P{p}": 1 for p in range(10)}}
    assert next(walked)["P9"] == 2
    walked.close()  # the walk stops with the iteration
    drawn = space.sample(50, seed=3)
    assert len(drawn) == 50 and len({json.dumps(c) for c in drawn}) == 50
    assert drawn == space.sample(50, seed=3) and drawn != space.sample(50, seed=4)
    assert all(c["BLOCK"] in (128, 256, 512, 1024) and 1 <= c["P7"] <= 4 for c in drawn)
    assert all(c in space for c in drawn) and {**drawn[0], "P3": 5} not in space
    part = cutune.space(spec=path, shape="1000", shard="2/3")
    assert len(part) == (16 * 4 ** 10 - 2) // 3 + 1
    second = {"BLOCK": 128, "ITEMS": 1, **{f"P{p}": 1 for p in range(9)}, "P9": 2}  # position 1: part 2 of 3
    assert second in part and {**second, "P9": 3} not in part
    with pytest.raises(cutune.InputError, match="not from part 2/3"):
        part.sample(1)


def test_space_of_10_to_the_12_is_estimated(tmp_path, tune_program):
    path = _big_spec(tmp_path, 10, True)  # 16 * 16^10 combinations, 16 * 10^10 valid
    space = cutune.space(spec=path, shape="1000")
    out = tune_program("space", "--spec", str(path), "--shape", "1000")
    assert str(space) == out.stdout.strip() and str(space).startswith("about ")
    counts = space.counts
    assert not space.held and not space.exact and counts["combinations"] == 16 * 16 ** 10
    assert counts["valid_low"] <= 16 * 10 ** 10 <= counts["valid_high"]
    assert counts["valid_low"] <= counts["valid"] <= counts["valid_high"]
    with pytest.raises(cutune.InputError, match="too many to count exactly"):
        len(space)
    drawn = space.sample(20, seed=1)
    assert len(drawn) == 20 and all(c[f"P{2 * i}"] <= c[f"P{2 * i + 1}"] for c in drawn for i in range(10))
    assert all(c in space for c in drawn)  # by the constraints, not by a walk of 1.6e11
    assert {**drawn[0], "P0": 4, "P1": 1} not in space
    first = next(iter(space))
    assert first == {"BLOCK": 128, "ITEMS": 1, **{f"P{p}": 1 for p in range(20)}}


def test_space_errors_are_the_commands(tune_program):
    with pytest.raises(cutune.InputError) as e:
        cutune.space("no_such_kernel")
    out = tune_program("space", "--kernel", "no_such_kernel")
    assert out.returncode != 0 and out.stderr.strip() == "error: " + str(e.value)
    with pytest.raises(cutune.InputError):
        cutune.space("transpose", "8192")  # one dimension of two
    with pytest.raises(cutune.InputError, match="unknown name 'NO_SUCH_PARAMETER'"):
        cutune.space("transpose", where="NO_SUCH_PARAMETER == 1")
    with pytest.raises(ValueError):  # InputError is a ValueError too
        cutune.space("transpose", arch="sm_x")


def test_best_from_an_imported_database(tmp_path, export_file, tune_program):
    db = tmp_path / "cutune.db"
    summary = cutune.db.import_(export_file, db)
    assert summary == {"runs": 1, "new_runs": 1, "measurements": 3, "new_measurements": 3}
    best = cutune.best("transpose", "8192x8192", db=db, gpu="NVIDIA H200")
    assert best.rule == "exact shape" and best.shape == "8192x8192" and best.measured
    assert best.config_text == "TILE=32,VEC=1,ROWS=8,SMEM=1,PAD=1,COALESCE=0"
    assert best.config["TILE"] == 32 and best.result.median_ms == pytest.approx(0.25)
    assert best.device["name"] == "NVIDIA H200" and best.device["arch"] == "sm_90"
    printed = tune_program("best", "--kernel", "transpose", "--shape", "8192x8192", "--db", db, "--gpu", "NVIDIA H200")
    assert f"config   {best.config_text}" in printed.stdout and f"rule     {best.rule_text}" in printed.stdout

    near = cutune.best("transpose", "6000x8000", db=db, gpu="NVIDIA H200")
    assert near.rule == "predicted" and near.shape == "8192x8192"
    with pytest.raises(cutune.InputError, match="no correct configuration"):
        cutune.best("transpose", "6000x8000", db=db, gpu="NVIDIA H200", exact=True)
    with pytest.raises(cutune.InputError, match="no results for transpose on 'NVIDIA A100'"):
        cutune.best("transpose", "8192x8192", db=db, gpu="NVIDIA A100")


def test_best_errors_are_the_commands(tmp_path, tune_program):
    missing = tmp_path / "missing.db"
    with pytest.raises(cutune.InputError) as e:
        cutune.best("transpose", "8192x8192", db=missing)
    out = tune_program("best", "--kernel", "transpose", "--shape", "8192x8192", "--db", missing)
    assert out.stderr.strip() == "error: " + str(e.value)
    assert not missing.exists()


def test_merge_export_import(tmp_path, export_file):
    a, b, merged = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "merged.db"
    cutune.db.import_(export_file, a)
    cutune.db.import_(export_file, b)  # the same run: merging both adds it once
    summary = cutune.db.merge([a, b], merged)
    assert summary["inputs"] == 2 and summary["new_runs"] == 1 and summary["new_measurements"] == 3
    assert cutune.db.merge([a], merged)["new_runs"] == 0
    exported = json.loads(cutune.db.export(merged))
    assert exported["format"] == "cutune-runs" and len(exported["runs"]) == 1
    assert len(exported["runs"][0]["measurements"]) == 3
    csv_file = tmp_path / "all.csv"
    assert cutune.db.export(merged, "csv", csv_file) is None
    assert csv_file.read_text().count("\n") == 4  # header and three measurements
    assert "t4" in cutune.db.formats() and "kt-cache" in cutune.db.formats()
    # A Kernel Tuner cache holds one shape: the selection picks it, and without one the export names both.
    cache = json.loads(cutune.db.export(merged, "kt-cache", shape="8192x8192", flush="read"))
    assert cache["problem_size"] == [8192, 8192] and len(cache["cache"]) == 2
    assert cache["cache"]["32,1,8,1,1,0"]["time"] == 0.25
    with pytest.raises(cutune.InputError, match="at 1024x1024, flush read: 1 measurement"):
        cutune.db.export(merged, "kt-cache")
    with pytest.raises(cutune.InputError, match="nothing matches kernel gemm"):
        cutune.db.export(merged, kernel="gemm")


def test_database_errors(tmp_path):
    with pytest.raises(cutune.InputError, match="does not exist"):
        cutune.db.export(tmp_path / "none.db")
    output = tmp_path / "out.db"
    with pytest.raises(cutune.DatabaseError, match="no such file"):
        cutune.db.merge([tmp_path / "none.db"], output)
    assert not output.exists()  # a refused merge leaves nothing behind
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "cutune-runs", "format_version": 99, "runs": []}')
    with pytest.raises(cutune.InputError):
        cutune.db.import_(bad, tmp_path / "c.db")
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(cutune.Error):
        cutune.db.merge([garbage], tmp_path / "d.db")


def test_tune_argument_errors(tmp_path):
    db = tmp_path / "t.db"
    with pytest.raises(cutune.InputError, match="needs a kernel"):
        cutune.tune(shapes="64x64", db=db)
    with pytest.raises(cutune.InputError, match="verify"):
        cutune.tune("transpose", "64x64", db=db, verify="sometimes")
    with pytest.raises(cutune.InputError, match="--atol and --rtol"):
        cutune.tune("transpose", "64x64", db=db, verify="none", atol=0.1)
    with pytest.raises(cutune.InputError, match="--flush"):
        cutune.tune("transpose", "64x64", db=db, flush="sideways")
    with pytest.raises(cutune.InputError):
        cutune.tune("transpose", "64x64x3", db=db)
    with pytest.raises(cutune.InputError):
        cutune.tune("transpose", "64x64", db=db, devices="0,0")
    with pytest.raises(cutune.InputError, match="repeats 0 is not a whole number from 1 to 100000"):
        cutune.tune("transpose", "64x64", db=db, repeats=0)
    with pytest.raises(cutune.InputError, match="warmup 1.5 is not a whole number"):
        cutune.tune("transpose", "64x64", db=db, warmup=1.5)
    with pytest.raises(cutune.InputError, match="max_measure_ms must be a number, not str"):
        cutune.tune("transpose", "64x64", db=db, max_measure_ms="20")
    with pytest.raises(TypeError, match="unexpected keyword argument 'budgt'"):
        cutune.tune("transpose", "64x64", db=db, budgt=5)
    with pytest.raises(cutune.InputError, match="--follow TILE: transpose's reference is the kernel"):
        cutune.tune("transpose", "64x64", db=db, follow="TILE")
    box = Path(__file__).resolve().parents[2] / "docs" / "examples" / "t1" / "box_filter.json"
    with pytest.raises(cutune.InputError, match="--follow 'width': box_filter has no such parameter"):
        cutune.tune(problem=box, db=db, follow=["filter_width", "width"])
    assert not db.exists()  # nothing was tuned: no database left behind


def test_tune_documents_its_option_keywords():
    names = [o["name"] for o in cutune._cutune.option_fields()]
    assert names[0] == "budget" and {"final_candidates", "final_repeats", "repeats", "warmup"} <= set(names)
    for name in names[1:]:  # budget is a parameter of tune() itself, described with the others
        assert f"`{name}` (default" in cutune.tune.__doc__


@pytest.mark.skipif(has_gpu(), reason="checks the error of a machine without a GPU")
def test_without_gpu(tmp_path, tune_program):
    db = tmp_path / "t.db"
    with pytest.raises(cutune.NoDeviceError) as e:
        cutune.tune("transpose", "64x64", budget=2, db=db, progress=False)
    out = tune_program("--kernel", "transpose", "--shapes", "64x64", "--budget", "2", "--db", db)
    assert out.stderr.strip() == "error: " + str(e.value)
    assert not db.exists()
    with pytest.raises(cutune.NoDeviceError):
        cutune.Runtime(None)


def _python(code):
    import subprocess
    import sys
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_torch_is_imported_by_cutune_ops_only():
    """`import cutune` never imports PyTorch; cutune.ops says clearly when PyTorch is missing or older than 2.4."""
    out = _python("import sys, cutune; print('torch' in sys.modules)")
    assert out.returncode == 0 and out.stdout.strip() == "False", out.stderr
    out = _python("import sys; sys.modules['torch'] = None; import cutune.ops")
    assert out.returncode != 0 and "ImportError: cutune.ops needs PyTorch 2.4 or later, and PyTorch is not installed" \
        in out.stderr, out.stderr
    old = ("import sys, types; torch = types.ModuleType('torch'); torch.__version__ = '1.13.1'; "
           "torch.library = types.ModuleType('torch.library'); sys.modules['torch'] = torch; import cutune.ops")
    out = _python(old)
    assert out.returncode != 0 and "cutune.ops needs PyTorch 2.4 or later (torch.library.register_fake), found 1.13.1" \
        in out.stderr, out.stderr
