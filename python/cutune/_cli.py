"""The `tune` command of an installed package: the program shipped in cutune/bin."""

import os
import sys
from pathlib import Path


def main() -> None:
    program = Path(__file__).resolve().parent / "bin" / "tune"
    if not program.is_file():
        sys.exit(f"error: the tune program is missing from the package ({program})")
    os.execv(str(program), [str(program)] + sys.argv[1:])
