"""A Dask client for the engines that run past one machine, always closed after use.

``dask_client(scheduler=None, workers=2)`` is a context manager that yields a
``distributed.Client``:
  * with no ``scheduler`` it starts a ``LocalCluster`` of ``workers`` worker
    processes (``num_threads`` threads each, no dashboard) on this machine, and closes
    the client and the cluster on the way out, whatever happened inside;
  * with ``scheduler="tcp://host:8786"`` it connects to a running cluster (on
    Kubernetes, YARN, an HPC batch system...) and gives up after ``timeout``
    seconds with a ``DaskUnavailable`` error that names the address; the cluster
    itself is not ours, so only the client is closed.

``leftovers()`` lists what this process still runs for a cluster (child processes,
listening TCP ports); the tests and the book check it is empty after a run.

Dask is imported here, inside the functions, so that ``import bpe_lesson`` (and
everything that never asks for ``engine: dask``) does not pay for it.

What this module does not do: split or schedule any work (``scale/dask_count.py``
and ``lm/dask_pack.py`` do), start a cluster on several machines (a real
cluster's scheduler is started by its own tooling: ``dask scheduler``,
dask-kubernetes, dask-jobqueue), or keep a cluster between calls.
"""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager

from .optional import MissingExtra, optional_import

DEFAULT_TIMEOUT = 5.0  # seconds to reach a scheduler before giving up
_ADDRESS = re.compile(r"(tcp|tls|ucx)://\[?[A-Za-z0-9_.:-]+\]?:\d{1,5}")


class DaskUnavailable(ValueError):
    """No Dask cluster could be used: the scheduler did not answer, or Dask is not installed.

    A ValueError, as the setting that led here (``scheduler:``, ``--scheduler``,
    ``engine: dask``) is what must change; the command line prints it on one line.
    """


def check_address(address: str) -> str:
    """The scheduler address, checked for shape (``protocol://host:port``); a ValueError says what is wrong.

    >>> check_address("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    >>> check_address("10.0.0.5")
    Traceback (most recent call last):
    ...
    ValueError: scheduler address '10.0.0.5' should look like tcp://HOST:PORT, e.g. tcp://10.0.0.5:8786
    """
    if not isinstance(address, str) or not _ADDRESS.fullmatch(address):
        raise ValueError(f"scheduler address {address!r} should look like tcp://HOST:PORT, "
                         f"e.g. tcp://10.0.0.5:8786")
    return address


def _distributed():
    try:
        return optional_import("distributed", "engine dask")
    except MissingExtra as e:
        raise DaskUnavailable(str(e)) from None


@contextmanager
def dask_client(scheduler: str | None = None, workers: int = 2, num_threads: int = 1,
                timeout: float = DEFAULT_TIMEOUT):
    """Yield a ``distributed.Client``: on ``scheduler``, or on a LocalCluster closed on exit.

    >>> with dask_client(workers=1) as client:
    ...     client.submit(sum, [1, 2, 3]).result()
    6
    """
    distributed = _distributed()
    if scheduler is not None:
        check_address(scheduler)
        try:
            client = distributed.Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise DaskUnavailable(f"no Dask scheduler answered at {scheduler} within {timeout:g} s "
                                  f"({type(e).__name__}); is `dask scheduler` running there, "
                                  f"and is the port open?") from None
        try:
            yield client
        finally:
            client.close()
        return
    # on localhost only; no dashboard (it needs bokeh); subtle: the scheduler serves /health
    # over HTTP even so, on port 8787 unless told otherwise: a free port instead, so that
    # two clusters never compete for it. Logs: critical only. subtle: at shutdown on a busy
    # machine a worker may log "Failed to communicate with scheduler during heartbeat" at
    # ERROR while the scheduler is already gone; that noise reached notebooks' stderr. A task
    # that fails still raises in the client, so nothing real is hidden.
    cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=num_threads, processes=True,
                                       host="127.0.0.1", dashboard_address=None,
                                       scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                       silence_logs=logging.CRITICAL)
    try:
        client = distributed.Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def wait(futures) -> None:
    """Block until every future is done (``distributed.wait``)."""
    _distributed().wait(futures)


def as_completed(futures):
    """The futures in the order they finish (``distributed.as_completed``)."""
    return _distributed().as_completed(futures)


def leftovers() -> list[str]:
    """What this process still runs for a cluster: its child processes and listening TCP ports.

    (The resource tracker that ``multiprocessing`` starts once and keeps for the life
    of the process is not listed.)

    >>> before = leftovers()
    >>> with dask_client(workers=1) as client:
    ...     len(leftovers()) > len(before)      # a nanny, its worker, the scheduler's port...
    True
    >>> leftovers() == before                   # ...all gone on the way out
    True
    """
    psutil = optional_import("psutil", "leftovers")  # installed with distributed

    me = psutil.Process()
    out = []
    for child in me.children(recursive=True):
        try:
            command = " ".join(child.cmdline())
        except psutil.Error:
            continue  # it ended while we looked
        if "multiprocessing.resource_tracker" in command:
            continue  # multiprocessing's helper: one per process, for its whole life, not a cluster's
        out.append(f"process {child.pid} ({command[:60]})")
    for proc in [me]:
        for conn in proc.net_connections(kind="tcp"):
            if conn.status == psutil.CONN_LISTEN:
                out.append(f"listening port {conn.laddr.port} (process {proc.pid})")
    return out
