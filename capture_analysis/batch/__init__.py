"""A run over many files: which files (``files``), reading them (``loading``), analyzing them in this process or in
workers (``outcome``, ``workers``) through the cache (``cache``), a CI shard of them (``shard``), and the collector's
tuning for a batch (``gc_tuning``).  ``tasks`` holds what crosses processes and the cache: the task each file
is given, and its outcome."""
