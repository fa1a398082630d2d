#!/usr/bin/env python3
"""check_layers.py on a made-up tree of stages: an include down the links passes, one up is reported, and so is a
stage that reaches, through another, a stage or library it is kept apart from."""
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import check_layers  # noqa: E402


def stage(root, name, links=""):
    folder = root / name
    (folder / "include" / "cutune").mkdir(parents=True)
    text = f"cutune_add_stage({name})\n"
    if links:
        text += f"target_link_libraries(cutune_{name} PUBLIC {links})\n"
    (folder / "CMakeLists.txt").write_text(text)
    (folder / "include" / "cutune" / f"{name}.hpp").write_text("#pragma once\n")
    return folder


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        low, high = stage(root, "low"), stage(root, "high", "cutune_low")
        (high / "uses.cpp").write_text('#include "cutune/low.hpp"\n#include "low/inner.hpp"\n#include "beside.hpp"\n')
        found, _ = check_layers.violations(root, kept_apart={})
        assert found == [], found
        (low / "up.cpp").write_text('// fine\n#include "cutune/high.hpp"\n')
        (low / "up2.hpp").write_text('#include "high/detail.hpp"\n')
        found, _ = check_layers.violations(root, kept_apart={})
        assert [f.split(":")[0:2] for f in found] == [["low/up.cpp", "2"], ["low/up2.hpp", "1"]], found
        (low / "up.cpp").unlink()
        (low / "up2.hpp").unlink()
        gpu = stage(root, "gpu")
        (gpu / "CMakeLists.txt").write_text("cutune_add_stage(gpu)\ntarget_link_libraries(cutune_gpu PRIVATE CUDA::nvrtc)\n")
        found, _ = check_layers.violations(root, kept_apart={"high": ("gpu", "CUDA::nvrtc")})
        assert found == [], found
        (low / "CMakeLists.txt").write_text("cutune_add_stage(low)\ntarget_link_libraries(cutune_low PUBLIC cutune_gpu)\n")
        found, _ = check_layers.violations(root, kept_apart={"high": ("gpu", "CUDA::nvrtc")})
        assert found == ["high/ reaches gpu/ (high -> low -> gpu)",
                         "high/ reaches CUDA::nvrtc (high -> low -> gpu -> CUDA::nvrtc)"], found
    print("check_layers: an include down the links passes, two up are reported, and a stage that reaches another "
          "it is kept apart from, and its library, through a third")


if __name__ == "__main__":
    main()
