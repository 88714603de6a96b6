"""The notebooks' own solutions that several test files build on, written once.

``merge_pair`` is *The merge rule*'s solution to ``ex-merge-merge`` (the chapter's name for it);
the later chapters' test solutions call it as ``merge``, as their notebooks call their own.
"""


def merge_pair(ids, pair, idx):
    """Every occurrence of ``pair`` in ``ids``, left to right, replaced by ``idx``.

    >>> merge_pair([1, 2, 3, 1, 2], (1, 2), 4)
    [4, 3, 4]
    """
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and (ids[i], ids[i + 1]) == pair:
            out.append(idx)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


merge = merge_pair
