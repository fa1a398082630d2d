#!/usr/bin/env python3
"""Fails when a stage's code includes a header of a stage it does not link (an include that points up the data flow,
or across it). The stages are the folders that build cutune_<folder> (cli/: cutune_commands, python/: _cutune); what
a stage links is what its folder's targets link (target_link_libraries in its CMakeLists.txt), followed through the
stages below; a header is a stage's when it lies in that stage's folder, its public ones under
<stage>/include/cutune/. Prints each offending include as FILE:LINE and exits 1. The build refuses such an include
too (no stage has the project root on its include path, CMakeLists.txt's cutune_stage_headers); this check names it
without a build, and covers the folders a given build leaves out (cluster/ without MPI, python/).

It also fails when a stage of KEPT_APART reaches, through any chain of links, a stage or library that table keeps it
from (the store and what reads it work without NVRTC, the driver or the workbench), and says which chain does.

    check_layers.py SOURCE_DIR
"""
import pathlib
import re
import sys

TARGET = re.compile(r"target_link_libraries\(\s*(\S+)(.*?)\)", re.S)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = {".cpp", ".hpp", ".h", ".cu", ".cuh"}
# What a stage must not reach: stage folders, or libraries a stage links (compile/ links NVRTC; driver/ loads the
# driver at run time, so no stage links it, and driver/ stands for it).
MACHINERY = ("compile", "driver", "measure", "worker", "CUDA::nvrtc", "CUDA::cuda_driver")
KEPT_APART = {"results": MACHINERY, "db": MACHINERY, "formats": MACHINERY, "report": MACHINERY}


def stages_and_links(root):
    """Each stage folder and the stage folders its target links directly; and every name its targets link."""
    target_of = {}
    links = {}
    for cmake in sorted(root.glob("*/CMakeLists.txt")):
        folder = cmake.parent.name
        text = cmake.read_text()
        if "cutune_add_stage(" in text:
            target_of[f"cutune_{folder}"] = folder
        targets = TARGET.findall(text)
        for target, _ in targets:
            if target in (f"cutune_{folder}", "cutune_commands", "_cutune"):
                target_of[target] = folder
        if folder in target_of.values():  # a stage: what any of its targets links (cli/'s program links cluster/)
            for _, rest in targets:
                links.setdefault(folder, set()).update(rest.split())
    stages = set(target_of.values())
    everything = {s for s in stages if f"cutune_{s}" in target_of and s not in ("cluster",)}
    direct = {}
    for folder in stages:
        direct[folder] = set()
        for name in links.get(folder, ()):
            if name in target_of:
                direct[folder].add(target_of[name])
            elif name == "cutune":  # the umbrella library: every stage but cluster/
                direct[folder] |= everything
    return direct, links


def reachable(direct):
    below = {}
    for stage in direct:
        seen, pending = set(), [stage]
        while pending:
            for nxt in direct.get(pending.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    pending.append(nxt)
        below[stage] = seen | {stage}
    return below


def chain(direct, start, goal):
    """The stages from `start` to `goal` along the links, shortest first; None when `goal` is out of reach."""
    came_from, pending = {start: None}, [start]
    while pending:
        stage = pending.pop(0)
        if stage == goal:
            path = []
            while stage is not None:
                path.append(stage)
                stage = came_from[stage]
            return path[::-1]
        for nxt in sorted(direct.get(stage, ())):
            if nxt not in came_from:
                came_from[nxt] = stage
                pending.append(nxt)
    return None


def apart(direct, links, kept_apart):
    """Each stage of `kept_apart` that reaches a stage or library it is kept from, with the chain that does."""
    below = reachable(direct)
    found = []
    for stage, others in sorted(kept_apart.items()):
        if stage not in direct:
            found.append(f"{stage}/: no such stage")
            continue
        for other in others:
            if other in direct:
                path = chain(direct, stage, other) if other in below[stage] else None
            else:
                linker = next((s for s in sorted(below[stage]) if other in links.get(s, ())), None)
                path = chain(direct, stage, linker) + [other] if linker else None
            if path:
                found.append(f"{stage}/ reaches {other if '::' in other else other + '/'} ({' -> '.join(path)})")
    return found


def owner(include, root, stages, public):
    first = include.split("/", 1)[0]
    if include.startswith("cutune/"):
        return public.get(include)
    if first in stages and "/" in include:
        return first
    return None  # a header beside the file, or a library's


def violations(root, kept_apart=None):
    direct, links = stages_and_links(root)
    below = reachable(direct)
    stages = set(direct)
    public = {}
    for stage in stages:
        for header in (root / stage / "include" / "cutune").glob("*.hpp"):
            public[f"cutune/{header.name}"] = stage
    found = []
    for stage in sorted(stages):
        for path in sorted((root / stage).rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                other = owner(match.group(1), root, stages, public)
                if other is not None and other not in below[stage]:
                    found.append(f"{path.relative_to(root)}:{number}: {stage}/ includes {match.group(1)} of {other}/, "
                                 f"which it does not link")
    found += apart(direct, links, KEPT_APART if kept_apart is None else kept_apart)
    return found, direct


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1]).resolve()
    found, direct = violations(root)
    if len(direct) < 10:
        sys.exit(f"{root}: found only {len(direct)} stages ({', '.join(sorted(direct))}): not a cutune source tree?")
    for line in found:
        print(line)
    kept = ", ".join(f"{s}/" for s in sorted(KEPT_APART))
    print(f"{len(direct)} stages, {len(found)} includes or links against the layers; {kept} reach none of "
          f"{', '.join(m if '::' in m else m + '/' for m in MACHINERY)}" + (" (but for the above)" if found else ""))
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
