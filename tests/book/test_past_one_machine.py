"""Past one machine, read against its own stored outputs: each sentence fixed in issue 33 stays fixed.

Reads ``book/past_one_machine.ipynb`` as JSON (no kernel): the glued values, the
printed outputs and the markdown around them. What this file does not do: run the
notebook (``pytest --nbval`` does) or judge timings, which vary by machine.
"""

import ast
import re

from bpe_lesson.patterns import GPT4_PATTERN, split_chunks
from bpe_lesson.scale.dask_count import plan_tasks

from _notebook import (cell_above, chapter, code_cell_starting, fold, glued_tags, glued_values,
                       markdown, markdown_cells, printed, section, source)

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


def test_the_intro_says_hours_as_the_sizing_measures(nb):
    # "takes days" against a table that counts 100 GB in hours on one core
    intro = markdown_cells(nb)[0]
    hours = glued_values(nb)["one_core_h"]
    assert "days" not in intro and "hours" in intro
    assert 3 * hours < 24, f"a few hundred GB at the stored rate is {3 * hours:.0f} hours on one core"


def test_the_benchmark_is_not_said_to_read_50_MB_of_the_stdlib(nb):
    mb = glued_values(nb)["corpus_mb"]
    text = fold(markdown(nb))
    assert mb < 50 and "50 MB of the stdlib" not in text
    assert "gone round again past their end" in text


def test_timings_are_glued_from_cells_whose_output_nbval_ignores(nb):
    tags = glued_tags(nb)
    for name in ("reduce_s", "here_s", "cluster_s", "count_rate", "encode_rate", "task_s",
                 "one_core_h"):
        assert "nbval-ignore-output" in tags[name], f"{name} is a timing: tag its cell nbval-ignore-output"


def test_the_summary_agrees_with_the_printed_outputs(nb):
    g = glued_values(nb)
    summary = section(nb, "## Summary")
    bare = re.sub(r"\{glue:text\}`[^`]*`|`[^`]*`|\$[^$]*\$", "", summary).replace("100 GB", "")
    typed = set(re.findall(r"\d[\d,.]*", bare)) - {"2"}  # 2 workers: an input
    assert not typed, f"figures typed into the Summary: {typed}"
    assert f"{g['n_distinct']:,} distinct chunks" in printed(code_cell_starting(nb, "with dask_client("))
    assert f"{g['n_ran']} tasks ran" in printed(code_cell_starting(nb, "with dask_client("))
    assert f"the same {g['n_merges']:,} merges" in printed(code_cell_starting(nb, "def config("))
    assert f"in {g['n_shards']} shards" in printed(code_cell_starting(nb, "def out(name):"))
    apart = printed(code_cell_starting(nb, "one = plan_tasks("))
    assert f"{g['n_ranges']} ranges counted apart: {g['distinct_first']:,}" in apart
    assert f"{g['n_tasks']} tasks; the first three" in printed(code_cell_starting(nb, "tasks = plan_tasks("))
