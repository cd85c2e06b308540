"""The torch-extension porter behind `python -m cpp_extension port` (docs/DESIGN.md, "Porting").

One module per concern: ``main`` (the command: files in, report out), ``files`` (reading
and writing the tree, never through a link), ``cxx`` and ``python`` (the two rewriting
passes), ``port_map`` (the one table of torch names and their SDK counterparts),
``sdk_names`` (what the SDK's headers and packages provide), ``probe`` (the syntax-only
compile of the result) and ``census`` (real extensions' torch names, ranked).
"""
