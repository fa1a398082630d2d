#!/usr/bin/env python3
"""Runs every shell command quoted in README.md and docs/*.md, and checks that their relative links resolve.

Commands are what fenced blocks hold: in a ```console block each line that starts with "$ " (continued by lines
ending in a backslash), followed by what it prints, and every line of a ```sh block. Other blocks (json, cpp, text,
bash scripts) are not run. HTML comments on the lines before a block's fence mark it (one a line; they combine):

    <!-- check: gpu -->            its commands need a GPU: only `--gpu` runs them (after the page's host commands
                                   before them, in order)
    <!-- check: fails -->          its commands must exit non-zero (an error the page shows)
    <!-- check: file NAME -->      not run: the block's text is written to NAME, for the commands after it

A few commands cannot run in a test at all; NOT_RUN lists them with the reason. Each page runs in a scratch folder of
its own, in which every top-level folder of the source tree is a symbolic link (so `examples/...` and `templates/...`
resolve), its small top-level files are copies, and `build` is the build under test, whose folder comes first on
PATH (so `tune` is that build's). The cubin cache is a folder of the scratch folder. The lines a console block
shows under a command must appear in its output (stdout and stderr together) in that order, each a whole line, where
"..." stands for any text.

    check_docs.py --source DIR --build DIR          links and host commands (ctest: docs)
    check_docs.py --source DIR --build DIR --gpu    every command; exit 77 (skipped) without a GPU (ctest: docs_gpu)
    check_docs.py --source DIR --list               how each command is classified, nothing run
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

SKIP = 77  # ctest's SKIP_RETURN_CODE for the GPU run on a machine without a GPU

# Commands that no test can run, with the reason. Keep it short: everything else runs on the host or on a GPU.
NOT_RUN = [
    (r"^ctest --test-dir build\b",
     "the test suite itself, of which this check is a test; CI runs README.md's line verbatim (.ci/run, checked here)"),
    (r"^(mpirun|srun)\b",
     "needs an MPI job over several GPUs or nodes; tests/cluster/mpi_test.cpp runs the cluster code under mpirun on stand-ins"),
    (r"^(sbatch|jobid=\$\(sbatch)\b", "needs a Slurm cluster"),
    (r"^(pip|python3 -m pip) install\b", "installs into a Python environment and builds the extension (minutes)"),
    (r"^(fuzz/run\.sh|build-fuzz/|CC=clang)",
     "needs clang and a sanitized build of its own (minutes); .ci/run runs fuzz/run.sh 20"),
    (r"^cmake (-S|--build|--install)\b",
     "configures, builds or installs the build under test (tests/consumer installs it and builds against the package)"),
    (r"^bench/search_vs_kernel_tuner\.sh\b", "installs Kernel Tuner from PyPI into a virtual environment (network)"),
]
# scripts/setup.sh installs Debian packages (apt-get, sudo) and builds build/: the build under test stands for it,
# and what follows it on the line is classified like any command.
SETUP = "scripts/setup.sh && "

# Fenced blocks whose text is not run: code, data and scripts shown. Any other language is an error, so that a command
# cannot hide in a block the checker skips (write ```console or ```sh).
NOT_COMMANDS = {"bash", "cmake", "cpp", "cuda", "json", "python", "text"}

MARKER = re.compile(r"^<!--\s*check:\s*(gpu|fails|file\s+(\S+))\s*-->\s*$")
FENCE = re.compile(r"^(```+)\s*([\w+-]*)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


@dataclass
class Command:
    page: str
    line: int
    text: str
    gpu: bool = False
    fails: bool = False
    expected: list = field(default_factory=list)
    not_run: str = ""  # the reason, when no test can run it
    file: tuple = None  # (name, content): a file to write instead of a command


def pages(source):
    docs = sorted((source / "docs").glob("*.md"))
    return [source / "README.md"] + docs


def parse_page(path, source, problems):
    """The commands and files of one page, in order; what the checker cannot read goes to `problems`."""
    rel = str(path.relative_to(source))
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    marks = []
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i].strip())
        if m:
            marks.append(m)
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f and lines[i].lstrip().startswith("```"):
            problems.append(f"{rel}:{i + 1}: an indented fence: the checker reads fences at the start of a line only")
        if not f:
            if lines[i].strip():
                marks = []
            i += 1
            continue
        fence, lang = f.group(1), f.group(2)
        start = i + 1
        j = start
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        body = lines[start:j]
        gpu = any(m.group(1) == "gpu" for m in marks)
        fails = any(m.group(1) == "fails" for m in marks)
        names = [m.group(2) for m in marks if m.group(2)]
        if names:
            out.append(Command(rel, start, f"(file {names[0]})", file=(names[0], "\n".join(body) + "\n")))
        elif lang == "console":
            out += console_commands(rel, start, body, gpu, fails)
        elif lang == "sh":
            out += sh_commands(rel, start, body, gpu, fails)
        elif lang not in NOT_COMMANDS:
            problems.append(f"{rel}:{i + 1}: a ```{lang} block: write commands in ```console or ```sh, or add the "
                            "language to NOT_COMMANDS")
        marks = []
        i = j + 1
    return out


def joined(body, k):
    """The command that starts at body[k], with its continuation lines, and the index after it."""
    text = body[k]
    while text.endswith("\\") and k + 1 < len(body):
        k += 1
        text = text[:-1] + " " + body[k].lstrip()
    return text, k + 1


def console_commands(page, first, body, gpu, fails):
    out = []
    k = 0
    while k < len(body):
        if not body[k].startswith("$ "):
            k += 1
            continue
        line = first + k + 1
        text, k = joined(body, k)
        cmd = Command(page, line, text[2:].strip(), gpu, fails)
        while k < len(body) and not body[k].startswith("$ "):
            if body[k].strip() and body[k].strip() != "...":
                cmd.expected.append(body[k].rstrip())
            k += 1
        out.append(cmd)
    return out


def sh_commands(page, first, body, gpu, fails):
    out = []
    k = 0
    while k < len(body):
        if not body[k].strip() or body[k].lstrip().startswith("#"):
            k += 1
            continue
        line = first + k + 1
        text, k = joined(body, k)
        out.append(Command(page, line, text.strip(), gpu, fails))
    return out


def classify(cmd):
    if cmd.text.startswith(SETUP):
        cmd.text = cmd.text[len(SETUP):]
    for pattern, reason in NOT_RUN:
        if re.search(pattern, cmd.text):
            cmd.not_run = reason


def pattern_of(expected):
    parts = [re.escape(p) for p in expected.split("...")]
    return re.compile(r"\s*" + ".*".join(parts).strip() + r"\s*")


def missing_output(expected, output):
    """The first expected line that the output lacks (in order), or None."""
    lines = output.splitlines()
    at = 0
    for e in expected:
        p = pattern_of(e.strip())
        while at < len(lines) and not p.fullmatch(lines[at]):
            at += 1
        if at == len(lines):
            return e
        at += 1
    return None


def scratch_folder(source, build):
    """A folder in which the source tree's folders are links and its small top-level files copies, so that what a
    command writes there (cutune.db, report.html) never lands in the source tree."""
    folder = Path(tempfile.mkdtemp(prefix="cutune-docs-"))
    for entry in source.iterdir():
        if entry.name in ("build", ".git"):
            continue
        if entry.is_dir():
            (folder / entry.name).symlink_to(entry)
        elif entry.is_file() and entry.stat().st_size < (1 << 20):
            shutil.copy2(entry, folder / entry.name)
    (folder / "build").symlink_to(build)
    return folder


def run_page(cmds, source, build, gpu, timeout):
    """Runs a page's commands in order; the failures, as messages."""
    failures = []
    folder = scratch_folder(source, build)
    env = dict(os.environ)
    env["PATH"] = f"{build}{os.pathsep}{env.get('PATH', '')}"
    env["CUTUNE_CACHE_DIR"] = str(folder / "cubin-cache")
    try:
        for cmd in cmds:
            if cmd.file:
                (folder / cmd.file[0]).write_text(cmd.file[1], encoding="utf-8")
                continue
            if cmd.not_run or (cmd.gpu and not gpu):
                continue
            started = time.monotonic()
            try:
                done = subprocess.run(["bash", "-o", "pipefail", "-c", cmd.text], cwd=folder, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
                output, code = done.stdout, done.returncode
            except subprocess.TimeoutExpired as e:
                partial = e.stdout or ""
                output, code = partial.decode(errors="replace") if isinstance(partial, bytes) else partial, None
            seconds = time.monotonic() - started
            where = f"{cmd.page}:{cmd.line}"
            print(f"{where}: $ {cmd.text}  ({seconds:.1f} s)", flush=True)
            problem = None
            if code is None:
                problem = f"did not finish within {timeout} s"
            elif cmd.fails and code == 0:
                problem = "exited 0, but the page shows it failing"
            elif not cmd.fails and code != 0:
                problem = f"exited {code}"
            else:
                lacking = missing_output(cmd.expected, output)
                if lacking is not None:
                    problem = f"printed no line matching {lacking!r} (in the page's order)"
            if problem:
                tail = "\n".join("    " + l for l in output.splitlines()[-25:])
                failures.append(f"{where}: `{cmd.text}` {problem}; its output ended:\n{tail}")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return failures


def slug(heading):
    """The anchor GitHub gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    in_code = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            result.add(s if n == 0 else f"{s}-{n}")
    return result


# Pages that other work writes: a link to one is fine while it does not exist yet (and checked once it does).
PENDING = {}


def check_links(source):
    failures = []
    for page in pages(source):
        in_code = False
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
                if re.match(r"^[a-z]+:", target):
                    continue
                path_part, _, anchor = target.partition("#")
                resolved = (page.parent / path_part).resolve() if path_part else page
                where = f"{page.relative_to(source)}:{number}"
                try:
                    rel = str(resolved.relative_to(source.resolve()))
                except ValueError:
                    failures.append(f"{where}: link {target} leaves the source tree")
                    continue
                if not resolved.exists():
                    if rel in PENDING:
                        print(f"{where}: link to {rel}, not written yet ({PENDING[rel]})")
                    else:
                        failures.append(f"{where}: link {target}: no such file")
                    continue
                if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
                    failures.append(f"{where}: link {target}: {rel} has no heading with anchor #{anchor}")
    return failures


def check_ci(source, cmds):
    """The README's test command must be the very command CI runs, as one step of its gate (.ci/gate.sh)."""
    ci = (source / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    tests = [c for c in cmds if c.page == "README.md" and c.text.startswith("ctest ")]
    if not tests:
        return ["README.md quotes no `scripts/setup.sh && ctest ...` command"]
    steps = [l.strip() for l in ci if l.strip().startswith("gate ")]
    return [f"{c.page}:{c.line}: `{SETUP}{c.text}` is not a gate step of .ci/run" for c in tests
            if not any(line.endswith(f"'{SETUP}{c.text}'") for line in steps)]


def gpu_absent_reason():
    if Path("/dev/nvidia0").exists():
        return None
    try:
        listed = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                timeout=30).stdout
        if "GPU " in listed:
            return None
    except (OSError, subprocess.TimeoutExpired):
        pass
    return "no NVIDIA GPU on this machine (no /dev/nvidia0, and nvidia-smi -L lists none)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="the source tree (README.md, docs/)")
    parser.add_argument("--build", type=Path, help="the build folder (tune, examples, bench)")
    parser.add_argument("--gpu", action="store_true", help="run the commands that need a GPU too")
    parser.add_argument("--list", action="store_true", help="print each command's class and run nothing")
    parser.add_argument("--timeout", type=float, default=None, help="seconds per command (60 host, 900 GPU)")
    args = parser.parse_args()
    source = args.source.resolve()

    by_page = []
    problems = []
    for page in pages(source):
        cmds = parse_page(page, source, problems)
        for c in cmds:
            classify(c)
        by_page.append(cmds)
    every = [c for cmds in by_page for c in cmds if not c.file]

    if args.list:
        for c in every:
            kind = "not run: " + c.not_run if c.not_run else "gpu" if c.gpu else "host"
            print(f"{c.page}:{c.line}: [{kind}] {c.text}")
    counts = {"host": sum(1 for c in every if not c.not_run and not c.gpu),
              "gpu": sum(1 for c in every if not c.not_run and c.gpu),
              "not run": sum(1 for c in every if c.not_run)}
    print(f"{len(every)} commands in {len(by_page)} pages: {counts['host']} on the host, {counts['gpu']} on a GPU, "
          f"{counts['not run']} in no test")
    if args.list:
        return 0

    if args.build is None:
        parser.error("--build is needed to run commands")
    build = args.build.resolve()
    if args.gpu:
        reason = gpu_absent_reason()
        if reason:
            print(f"skipped: {reason}; the {counts['gpu']} commands that need one were not run")
            return SKIP
    timeout = args.timeout or (900 if args.gpu else 60)

    failures = problems + check_links(source) + check_ci(source, every)
    for c in every:
        if c.not_run:
            print(f"{c.page}:{c.line}: not run ({c.not_run}): {c.text}")
    for cmds in by_page:
        failures += run_page(cmds, source, build, args.gpu, timeout)
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    print(f"{len(failures)} failures" if failures else "every link resolves and every command ran as the docs say")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
