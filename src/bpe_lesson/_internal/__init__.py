"""The core's insides: helpers the core modules use and a Part I reader need not open.

``files`` (reading and writing files safely), ``progress`` (progress bars),
``unicode_data`` (tiktoken's character classes, stored, for ``unicode_classes``) and
``char_classes`` (the table the compiled scanners read), ``arguments`` (argument checks
and conversions, and a setting's older name), ``optional`` (optional dependencies,
with the install command to name) and ``cluster`` (a Dask client, for the parts that
count or pack on a cluster).

What this package does not hold: anything a chapter teaches from, or anything that
imports the rest of the package: it is the bottom layer, and every other part may
import it. Its ``__init__`` imports nothing, so each module is loaded only by the
module that needs it.
"""
