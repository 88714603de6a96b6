"""A YAML file read safely: the config of ``bpe-lesson train -c`` (``config.py``).

Capped (a config is a page; 1 MiB is far more), a regular file only, UTF-8, and
its aliases bounded: a "billion laughs" of nested aliases is refused before it
is expanded, as is an alias that refers to the value that holds it. Each
problem is a ``ValueError`` naming the file (``config.load_config`` makes it a
``ConfigError``).

What this module does not do: check the fields (``config.py``).
"""

from __future__ import annotations

import yaml

from .._internal.files import read_bytes

__all__ = ["MAX_CONFIG_BYTES", "MAX_CONFIG_NODES", "read_yaml"]

MAX_CONFIG_BYTES = 1 << 20  # a config is a page of YAML; 1 MiB is far more
MAX_CONFIG_NODES = 100_000  # values once aliases are expanded (a config has a few hundred)


def _expanded_size(node, path, sizes=None, busy=None) -> int:
    """How many values ``node`` stands for once its aliases are expanded, counted on the
    composed graph (each node once), so a 451-byte "billion laughs" is refused at once.

    >>> _expanded_size(yaml.compose("a: &x [1, 2]\\nb: *x\\nc: *x"), "c.yaml")  # the map, 3 keys, 3 lists of 2
    13
    """
    sizes = {} if sizes is None else sizes  # id(node) -> size
    busy = set() if busy is None else busy  # ids of the nodes being counted: a cycle
    key = id(node)
    if key in sizes:
        return sizes[key]
    if key in busy:
        raise ValueError(f"{path}: a YAML alias refers to the value that holds it (a cycle)")
    busy.add(key)
    children = []
    if isinstance(node, yaml.SequenceNode):
        children = node.value
    elif isinstance(node, yaml.MappingNode):
        children = [n for pair in node.value for n in pair]
    total = 1
    for child in children:
        total += _expanded_size(child, path, sizes, busy)
        if total > MAX_CONFIG_NODES:
            raise ValueError(f"{path}: its YAML aliases expand to more than {MAX_CONFIG_NODES:,} values "
                             f"(nested aliases, a \"billion laughs\"); a config is a few hundred")
    busy.discard(key)
    sizes[key] = total
    return total


def read_yaml(path):
    """The config file's YAML: read capped (a regular file only), UTF-8, aliases bounded."""
    raw = read_bytes(path, MAX_CONFIG_BYTES, "config file")  # a folder (train -c DIR) or FIFO refused
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason})") from None
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, path)
        return loader.construct_document(node)
    except RecursionError:
        raise ValueError(f"{path}: its YAML nests too deeply") from None
    finally:
        loader.dispose()
