"""bench/profile.py's outputs (issue 33, defect 4): its default --out overwrote the shipped
bench/results/profile.csv and PNGs; now it is a new file, and a tracked --out is refused."""
import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "bench" / "results" / "profile"


def load_profile():
    spec = importlib.util.spec_from_file_location("bench_profile", REPO / "bench" / "profile.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture
def profile():
    if shutil.which("git") is None or subprocess.run(
            ["git", "-C", str(REPO), "ls-files", "--error-unmatch", "bench/results/profile.csv"],
            capture_output=True).returncode != 0:
        pytest.skip("not a git checkout with the shipped bench/results/profile.csv")
    return load_profile()


def test_default_out_is_a_new_untracked_file(profile):
    args = profile.parse(["--sizes", "64"])
    out = Path(args.out)
    assert out.parent == REPO / "bench" / "results"
    assert out.name.startswith("profile-") and out != SHIPPED
    assert not any(p.exists() for p in profile.output_paths(out))
    assert profile.tracked(profile.output_paths(out)) == []


def test_tracked_out_is_refused_unless_overwrite(profile, capsys):
    with pytest.raises(SystemExit) as exit_info:
        profile.parse(["--out", str(SHIPPED)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert f"would overwrite {SHIPPED}.csv" in err and "pass --overwrite" in err, err
    assert profile.parse(["--out", str(SHIPPED), "--overwrite"]).out == str(SHIPPED)
