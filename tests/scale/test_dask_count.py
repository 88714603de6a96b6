"""Counting chunks on a Dask cluster (scale/dask_count.py, _internal/cluster.py) on real text.

The counts are checked against ``regex`` splitting each whole file (independent
of the units, the compiled scanner and the cluster); training with ``engine: dask``
against ``engine: local`` and rustbpe; a worker killed in the middle of a task against an
undisturbed run. After every test nothing of a cluster is left: no child process,
no listening port.
"""

import os
import socket
from collections import Counter
from functools import partial

import pydoc_data.topics
import pytest
import regex

from bpe_lesson._internal.cluster import DaskUnavailable, dask_client, leftovers
from bpe_lesson.patterns import GPT4_PATTERN, O200K_PATTERN
from bpe_lesson.scale.config import ConfigError, parse_config
from bpe_lesson.scale.dask_count import count_on_cluster, count_phase, count_range, plan_tasks
from bpe_lesson.scale.phases import train_from_config

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of 2 workers for the tests that take a scheduler address; then nothing left."""
    assert leftovers() == [], "something was running before the cluster started"
    with dask_client(workers=2) as client:
        yield client.scheduler.address
    assert leftovers() == [], "closing the cluster left a process or a port"


@pytest.fixture(autouse=True)
def nothing_left_running():
    """After each test, the same child processes and listening ports as before it (the shared cluster's)."""
    before = sorted(leftovers())
    yield
    assert sorted(leftovers()) == before, "the test left part of a cluster running"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Two large text files (stdlib code; pydoc's topics, English prose) and a folder of small ones."""
    root = tmp_path_factory.mktemp("corpus")
    lib = os.path.dirname(os.__file__)
    code = b"".join(open(os.path.join(lib, n), "rb").read()
                    for n in sorted(os.listdir(lib)) if n.endswith(".py"))[:700_000]
    (root / "code.txt").write_bytes(code)
    prose = "\n\n".join(pydoc_data.topics.topics[k] for k in sorted(pydoc_data.topics.topics))
    (root / "topics.txt").write_text(prose, encoding="utf-8")
    small = root / "small"
    small.mkdir()
    for name in ("abc.py", "bisect.py", "heapq.py"):
        (small / (name + ".txt")).write_bytes(open(os.path.join(lib, name), "rb").read())
    return root


def files_of(root):
    return [(str(p), None) for p in sorted(root.rglob("*.txt"))]


def whole_file_counts(files, pattern):
    """Independent reference: ``regex`` over each whole file, no units, no scanner."""
    counts = Counter()
    for path, _ in files:
        text = open(path, "rb").read().decode("utf-8", errors="replace")
        counts.update(chunk.encode("utf-8") for chunk in regex.findall(pattern, text))
    return dict(counts)


def config(root, **fields):
    raw = {"output": str(root / "out.tiktoken"), "hardcoded_merges": False, "workers": 2,
           "phases": [{"name": "stdlib", "merges": 200, "sources": [{"path": str(root)}]}], **fields}
    return parse_config(raw)


@pytest.mark.parametrize("pattern", [GPT4_PATTERN, O200K_PATTERN])
def test_the_tasks_cover_each_file_and_end_at_newlines(corpus, pattern):
    files = files_of(corpus)
    tasks = plan_tasks(files, pattern, task_bytes=50_000)
    assert len(tasks) > 20  # the large files were cut into many ranges
    for path, _ in files:
        ranges = [(t[1], t[2]) for t in tasks if t[0] == path]
        assert ranges[0][0] == 0 and ranges[-1][1] == os.path.getsize(path)
        assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))  # contiguous, no gap, no overlap
        data = open(path, "rb").read()
        assert all(data[stop - 1:stop] == b"\n" for _, stop in ranges[:-1])


def test_counts_on_the_cluster_equal_regex_on_whole_files(corpus, cluster):
    files = files_of(corpus)
    tasks = plan_tasks(files, GPT4_PATTERN, task_bytes=100_000)
    with dask_client(cluster) as client:
        (counts, n_bytes, _), reduce_seconds = count_on_cluster(client, tasks, GPT4_PATTERN, split_every=3)
    assert counts == whole_file_counts(files, GPT4_PATTERN)
    assert n_bytes == sum(os.path.getsize(p) for p, _ in files)
    assert reduce_seconds >= 0


def test_training_on_dask_gives_the_local_merges(corpus, backend, cluster):
    local = train_from_config(config(corpus), backend=backend, progress=False, log=lambda line: None, write=False)
    dask = train_from_config(config(corpus, engine="dask", scheduler=cluster), backend=backend, progress=False,
                             log=lambda line: None, write=False)
    assert dask.tokenizer.merges == local.tokenizer.merges
    assert len(dask.tokenizer.merges) == 200
    assert dask.phases[0].bytes_read == local.phases[0].bytes_read
    assert dask.phases[0].unique_chunks == local.phases[0].unique_chunks
    # and independent of both engines: rustbpe, trained on the whole files (our tie rule, our byte ids)
    rustbpe = pytest.importorskip("rustbpe")
    peer = rustbpe.Tokenizer()
    peer.train_from_iterator(iter(open(path, "rb").read().decode("utf-8", errors="replace")
                                  for path, _ in files_of(corpus)), 256 + 200, pattern=GPT4_PATTERN)
    theirs = [token for token, _ in sorted(peer.get_mergeable_ranks(), key=lambda kv: kv[1])]
    assert [dask.tokenizer.vocab[i] for i in range(256 + 200)] == theirs


def _die_once(task, pattern, special_tokens, marker, victim):
    """count_range, except that the first worker to run ``victim`` dies halfway through it."""
    if task == victim and not os.path.exists(marker):
        count_range(task, pattern, special_tokens)  # half the work done...
        open(marker, "w").close()
        os._exit(1)  # ...and the worker process is gone, its result never sent
    return count_range(task, pattern, special_tokens)


def test_a_worker_killed_mid_task_changes_nothing(corpus, tmp_path):
    files = files_of(corpus)
    tasks = plan_tasks(files, GPT4_PATTERN, task_bytes=200_000)
    marker = str(tmp_path / "died")
    with dask_client(workers=2) as client:
        (expected, _, _), _ = count_on_cluster(client, tasks, GPT4_PATTERN)
        die = partial(_die_once, marker=marker, victim=tasks[len(tasks) // 2])
        (counts, n_bytes, _), _ = count_on_cluster(client, tasks, GPT4_PATTERN, count=die)
    assert os.path.exists(marker), "no worker died"
    assert counts == expected  # the lost task ran again, and was counted once
    assert n_bytes == sum(os.path.getsize(p) for p, _ in files)


def test_count_phase_starts_and_closes_its_own_cluster(corpus):
    cfg = config(corpus, engine="dask")
    counts, report, _ = count_phase(cfg, cfg.phases[0], task_bytes=300_000)
    assert counts == whole_file_counts(files_of(corpus), GPT4_PATTERN)
    assert report["sampled"] is False and report["bytes_read"] == report["bytes_held"]
    # (the autouse fixture checks that no worker, nanny or port is left)


def test_an_unreachable_scheduler_fails_fast_and_names_the_address():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(DaskUnavailable, match=f"no Dask scheduler answered at {address} within 2 s"):
        with dask_client(address, timeout=2):
            pass


@pytest.mark.parametrize("fields, message", [
    ({"engine": "spark"}, "engine: 'spark' should be local"),
    ({"scheduler": "tcp://10.0.0.5:8786"}, "scheduler: is only used with engine: dask"),
    ({"engine": "dask", "scheduler": "10.0.0.5:8786"}, "scheduler: scheduler address '10.0.0.5:8786' should look like"),
])
def test_bad_engine_fields_are_named(corpus, fields, message):
    with pytest.raises(ConfigError, match=message):
        config(corpus, **fields)
