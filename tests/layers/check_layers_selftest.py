#!/usr/bin/env python3
"""check_layers.py on a made-up tree of two stages: an include down the links passes, one up is reported."""
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
        found, _ = check_layers.violations(root)
        assert found == [], found
        (low / "up.cpp").write_text('// fine\n#include "cutune/high.hpp"\n')
        (low / "up2.hpp").write_text('#include "high/detail.hpp"\n')
        found, _ = check_layers.violations(root)
        assert [f.split(":")[0:2] for f in found] == [["low/up.cpp", "2"], ["low/up2.hpp", "1"]], found
    print("check_layers: an include down the links passes, two up are reported")


if __name__ == "__main__":
    main()
