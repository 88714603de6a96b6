"""Every chapter's cells can run twice, as a JupyterLab reader runs them.

Each chapter is executed in one kernel, top to bottom; a cell is run a second time
right after its first run when it is cheap (its first run took under ``CHEAP`` seconds)
or when it writes files or changes folders (``WRITES``: the state a second run trips
on). The chapter then goes on from the re-run's state, so a cell whose re-run breaks a
later one (a hand merge applied twice, then an assert on the merges) fails there too.
A cell that raises on a re-run, or later because of one, fails the test, named by
chapter and cell index.

The hand check these tests stand for: the reader who presses shift-enter twice.
Marked ``rerun`` (and ``slow``): it executes the whole book, a little longer than
``make book`` does (the merge rule 1.5 min, fine-tuning 3 min on 2 shared cores);
``-m "not rerun"`` deselects it.

What this module does not do: compare the re-run's outputs with the stored ones
(nbval does that for the first run); a cell whose output changes on a re-run is fine.
"""

import copy
import glob
import os
import re
import time

import nbformat
import pytest

nbclient = pytest.importorskip("nbclient")
from nbclient.exceptions import CellExecutionError  # noqa: E402

from _notebook import BOOK  # noqa: E402

CHEAP = 5.0  # seconds: a cell this fast is re-run at once
WRITES = re.compile(r"makedirs|mkdir|mkdtemp|chdir|rmtree|open\([^)]*[\"'][wa]b?[\"']|pack\(|save_|"
                    r"\.write|\.tofile|to_parquet|os\.replace|os\.remove")
# the chapters whose cells have been made safe to run twice and checked so; the others
# are not yet (the next round adds them here)
CHAPTERS = [os.path.join(BOOK, name + ".ipynb") for name in (
    "the_merge_rule", "training_fast", "your_own_tokenizer", "from_tokens_to_training_windows",
    "from_windows_to_fine_tuning")]


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _run(client, cell, index, failures, when):
    """Execute ``cell`` in the client's kernel; a raise is recorded, not thrown."""
    try:
        client.execute_cell(cell, index)
    except CellExecutionError as e:
        last = [line for line in ANSI.sub("", str(e)).splitlines() if line.strip()][-1:]
        failures.append(f"cell {index} ({when}): {last[0] if last else e!r}")


@pytest.mark.slow
@pytest.mark.rerun
@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: os.path.basename(p)[:-6])
def test_every_cell_runs_a_second_time(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                                     resources={"metadata": {"path": BOOK}})
    failures, again = [], []
    with client.setup_kernel():
        for i, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            start = time.monotonic()
            _run(client, cell, i, failures, "first run, after the re-runs above")
            if time.monotonic() - start < CHEAP or WRITES.search(cell.source):
                again.append(i)
                _run(client, copy.deepcopy(cell), i, failures, "run twice in a row")
    assert again, f"{os.path.basename(path)}: no cell was re-run"
    assert not failures, f"{os.path.basename(path)}: cells fail when run again:\n" + "\n".join(failures)
