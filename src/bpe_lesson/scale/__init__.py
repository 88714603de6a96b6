"""Training at scale from a YAML config (``bpe-lesson train -c config.yaml``), and from flags.

``config`` (the schema, read and checked; ``safe_yaml`` reads the file), ``phases``
(the runner and the command), ``flags`` (``bpe-lesson train FILE... --vocab-size N``,
``bpe_lesson.train`` from the command line), ``sources`` (streaming files into
units), ``reservoir`` (the memory budget) and ``counting`` (parallel chunk counting). The merge loop is the core's.
"""
