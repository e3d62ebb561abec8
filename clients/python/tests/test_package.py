"""The package installs offline into a venv (README, "Install"): Debian's setuptools as the build
backend (``--no-build-isolation``), no index; the installed copy is typed (py.typed) and importable
outside the source tree."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_installs_offline_into_a_venv(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index", str(source)], capture_output=True, text=True)
    assert install.returncode == 0, install.stdout + install.stderr
    probe = "import agent_memory, pathlib; p = pathlib.Path(agent_memory.__file__).parent; print(p, (p / 'py.typed').exists(), agent_memory.AsyncAgentMemory.__name__)"
    shown = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True).stdout.split()
    assert str(venv) in shown[0] and shown[1:] == ["True", "AsyncAgentMemory"]
