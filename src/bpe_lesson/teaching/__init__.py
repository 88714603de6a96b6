"""The book's helpers: ``samples`` (real text every Python install has, and multilingual
samples), ``viz`` (tokens as coloured spans, the plot style) and ``exercises`` (the tool
that makes the student version of the chapters).
"""
