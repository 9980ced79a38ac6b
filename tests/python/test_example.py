"""tools/examples/fusion_experiment.py runs, proves its fusion exact and writes its page."""
import os
import subprocess
import sys

import pytest

from conftest import SOURCE


def test_fusion_experiment_example(tmp_path):
    pytest.importorskip("onnx")
    page = tmp_path / "experiment.html"
    run = subprocess.run([sys.executable, str(SOURCE / "tools/examples/fusion_experiment.py"), "--html", str(page)],
                         capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "rewrites: [('hardswish-to-table', 2)]" in run.stdout
    assert "fused vs unfused: {'y': {'differ': 0, 'max_abs': 0.0, 'max_steps': 0}}" in run.stdout
    assert 'class="node fused"' in page.read_text(encoding="utf-8")
