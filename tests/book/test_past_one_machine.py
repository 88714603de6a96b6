"""Past one machine, read against its own stored outputs: each sentence fixed in issue 33 stays fixed.

Reads ``book/past_one_machine.ipynb`` as JSON (no kernel): the glued values, the
printed outputs and the markdown around them. What this file does not do: run the
notebook (``pytest --nbval`` does) or judge timings, which vary by machine.
"""

import ast
import re

from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.scale.dask_count import plan_tasks

from _notebook import (cell_above, chapter, code_cell_starting, fold, glue_refs, glued_tags,
                       glued_values, markdown, markdown_cells, printed, section, source, summary_cell)

nb = chapter("past_one_machine")


def test_the_worked_cut_is_where_plan_tasks_puts_it(nb, tmp_path):
    # the issue: the worked example's cut was not where the rule puts it
    cell = code_cell_starting(nb, "small = b")
    small = ast.literal_eval(re.search(r"small = (b\".*?\")\n", source(cell)).group(1))
    task_bytes = int(re.search(r"task_bytes=(\d+)", source(cell)).group(1))
    p = tmp_path / "small.txt"
    p.write_bytes(small)
    ranges = [t[1:3] for t in plan_tasks([(str(p), None)], GPT4_PATTERN, task_bytes=task_bytes)]
    g = glued_values(nb)
    assert g["cut_at"] == ranges[0][1] and g["small_size"] == len(small) == ranges[-1][1]
    assert g["second_aim"] == ranges[1][0] + task_bytes
    # the rule, by hand: the first newline at or after the aim is not safe here, the next is
    assert small[g["first_nl"]:g["first_nl"] + 1] == b"\n" and g["first_nl"] >= task_bytes
    assert not re.match(rb"[ \t]*[!-~]", small[g["first_nl"] + 1:])
    assert g["safe_nl"] == g["cut_at"] - 1 and re.match(rb"[ \t]*[!-~]", small[g["cut_at"]:])
    for s, e in ranges:  # the stored printout shows these very ranges
        assert f"range [{s:>2} : {e:>2}]" in printed(cell)
    prose = next(md for md in markdown_cells(nb) if "{glue:text}`cut_at`" in md)
    assert f"byte {task_bytes}," in prose


def test_the_cut_before_an_indented_line_is_called_harmless(nb):
    # the old text said a cut through "\n    return" splits differently: it is a safe cut
    assert split_chunks("f():\n    return", GPT4_PATTERN) == (
        split_chunks("f():\n", GPT4_PATTERN) + split_chunks("    return", GPT4_PATTERN))
    assert split_chunks("1\n\nx", GPT4_PATTERN) != (
        split_chunks("1\n", GPT4_PATTERN) + split_chunks("\nx", GPT4_PATTERN))
    out = printed(code_cell_starting(nb, "def chunks(text):"))
    assert "['f', '():\\n', '   ', ' return']" in out and "['1', '\\n', '\\n', 'x']" not in out
    text = markdown(nb)
    assert "does no harm" in text and "would leave" not in text


def test_a_range_may_start_on_an_indented_line(nb):
    # the stored cut of the corpus starts its second range with spaces: the prose says so
    out = printed(code_cell_starting(nb, "tasks = plan_tasks("))
    first = re.search(r"\.\.\.b'[^']*\\n( +)", out)
    assert first, "the first range should end before a line of indentation"
    text = markdown(nb)
    assert "begins with\na visible character" not in text and "begins with a visible character" not in text
    assert "after its spaces and tabs is visible" in text


def test_counting_apart_is_compared_with_count_units(nb):
    cell = code_cell_starting(nb, "one = plan_tasks(")
    assert "whole = count_units(" in source(cell)
    before = source(cell_above(nb, cell))
    assert "`count_units` over the whole file" in before and "`cut_units` over" not in before


def test_the_intro_states_the_measured_time_for_100_GB(nb):
    # it said "hours, not minutes" against its own table (22 minutes on the machine)
    intro = markdown_cells(nb)[0]
    assert "one_core_min" in glue_refs(intro) and "hours" not in intro
    g = glued_values(nb)
    # the glued minutes follow from the glued rate (rounded to 0.1 MB/s): 100 GB / rate
    assert abs(g["one_core_min"] - 100e9 / (g["count_rate"] * 1e6) / 60) <= 0.01 * g["one_core_min"]
    table = printed(code_cell_starting(nb, "CORPUS = 100e9"))
    one_core = re.search(r"^\s+1\s+([\d,.]+)\s", table, re.M).group(1)
    assert float(one_core.replace(",", "")) == g["one_core_min"]
    assert "{glue:text}`one_core_min:,.0f` minutes" in fold(summary_cell(nb))


def test_dropping_the_ones_at_the_leaves_is_shown_lossy(nb):
    # the text advised dropping the chunks seen once at the leaves without saying it is lossy
    from bpe_lesson.scale.dask_count import merge_counts

    # a hand case of the sentence: x once in each of two tasks, twice in all, and gone
    leaves = [{b"x": 1, b"y": 2}, {b"x": 1, b"y": 1}]
    whole = merge_counts(*[(leaf, 0, 0) for leaf in leaves])[0]
    kept = merge_counts(*[({c: n for c, n in leaf.items() if n > 1}, 0, 0) for leaf in leaves])[0]
    assert whole == {b"x": 2, b"y": 3} and kept == {b"y": 2}
    g = glued_values(nb)
    out = printed(code_cell_starting(nb, "from bpe_lesson.scale.dask_count import count_range"))
    m = re.search(r"([\d,]+) of ([\d,]+) distinct chunks gone, ([\d,]+) seen more than once", out)
    gone, total, more = (int(x.replace(",", "")) for x in m.groups())
    assert gone == g["n_gone"] and total == g["n_distinct"] and more > 0
    assert f"the counts of {g['n_changed']:,} distinct chunks changed" in out
    out = printed(code_cell_starting(nb, "from bpe_lesson.ranks import vocab_from_merges"))
    assert f"they part at merge {g['first_diff']};" in out and g["first_diff"] <= g["n_merges"]
    assert f"{g['n_lost']} tokens of the full counts' vocabulary are missing" in out and g["n_lost"] > 0
    text = fold(markdown(nb))
    assert "```{admonition} Dropping the chunks seen once changes the merges :class: warning" in text
    assert "parted from those of the full counts at merge {glue:text}`first_diff`" in text
    assert "lossy: on the stdlib the merges parted at merge {glue:text}`first_diff`" in fold(summary_cell(nb))


def test_workers_are_checked_for_the_clients_regex_and_paths(nb):
    # the chapter did not say that every worker needs the same regex and the same paths
    import regex

    cell = code_cell_starting(nb, "import regex\n\nREGEX_VERSION = ")
    assert "client.run(lambda: regex.__version__ == REGEX_VERSION)" in source(cell)
    assert "client.run(lambda: all(map(os.path.isfile, files)))" in source(cell)
    out = printed(cell)
    assert f"every worker has regex {regex.__version__}, as here: True; sees the corpus files: True" in out
    text = fold(markdown(nb))
    assert "every worker must find the corpus at the same path as the client" in text
    assert "the same `regex` version pinned" in text
    assert "Every worker needs the client's `regex` version and the corpus at the same path" in fold(
        summary_cell(nb))


def test_the_benchmark_is_not_said_to_read_50_MB_of_the_stdlib(nb):
    mb = glued_values(nb)["corpus_mb"]
    text = fold(markdown(nb))
    assert mb < 50 and "50 MB of the stdlib" not in text
    assert "gone round again past their end" in text


def test_timings_are_glued_from_cells_whose_output_nbval_ignores(nb):
    tags = glued_tags(nb)
    for name in ("reduce_s", "here_s", "cluster_s", "count_rate", "encode_rate", "task_s",
                 "one_core_min"):
        assert "nbval-ignore-output" in tags[name], f"{name} is a timing: tag its cell nbval-ignore-output"


def test_the_summary_agrees_with_the_printed_outputs(nb):
    g = glued_values(nb)
    summary = section(nb, "## Summary")
    bare = re.sub(r"\{glue:text\}`[^`]*`|`[^`]*`|\$[^$]*\$", "", summary).replace("100 GB", "")
    typed = set(re.findall(r"\d[\d,.]*", bare)) - {"2"}  # 2 workers: an input
    assert not typed, f"figures typed into the Summary: {typed}"
    assert f"{g['n_distinct']:,} distinct chunks" in printed(code_cell_starting(nb, "import regex\n\nREGEX_VERSION = "))
    assert f"{g['n_ran']} tasks ran" in printed(code_cell_starting(nb, "import regex\n\nREGEX_VERSION = "))
    assert f"the same {g['n_merges']:,} merges" in printed(code_cell_starting(nb, "def config("))
    assert f"in {g['n_shards']} shards" in printed(code_cell_starting(nb, "def out(name):"))
    apart = printed(code_cell_starting(nb, "one = plan_tasks("))
    assert f"{g['n_ranges']} ranges counted apart: {g['distinct_first']:,}" in apart
    assert f"{g['n_tasks']} tasks; the first three" in printed(code_cell_starting(nb, "tasks = plan_tasks("))
