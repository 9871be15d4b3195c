"""The ``apsp`` command that ``pip install`` puts on the PATH: runs the command-line tool built
with the package (``apsp/bin/apsp``, setup.py), with the same arguments and exit code.
It imports nothing of the package (no extension load before the tool starts)."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "apsp")
    if not os.access(exe, os.X_OK):
        sys.stderr.write("apsp: error: the command-line tool was not installed with this package "
                         f"(no {exe}; pip installs it unless APSP_PIP_CLI=0)\n")
        return 2
    os.execv(exe, ["apsp", *sys.argv[1:]])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
