"""``--counts``: allocations weighted by a measured run of the program (V8's precise coverage; design 2.7)."""
