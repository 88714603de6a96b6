"""Training at scale from a YAML config (``bpe-lesson train -c config.yaml``).

``config`` (the schema, read and checked), ``phases`` (the runner and the command),
``sources`` (streaming files into units), ``reservoir`` (the memory budget) and
``counting`` (parallel chunk counting). The merge loop is the core's.
"""
