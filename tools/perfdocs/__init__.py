"""The performance tables of the docs, generated from benchmark JSON (standard library only).

tools/perf_docs.py is the entry point; its docstring describes the command line, the inputs
and the outputs. The modules:

    common            paths, the data files of a run, Error
    data              docs/perf/data/*.json and meta.json; the 'Measured on' line
    fmt               number formatting, markdown tables
    pcg               PCG suite and triangular-solve tables (docs/performance.md, colorset.md)
    dense_triangular  docs/kernels/dense_triangular.md
    batched_factor    docs/kernels/batched_factor.md
    tridiagonal       docs/kernels/tridiagonal.md
    spmv              the SpMV comparison on node-block matrices (docs/performance.md)
    headline          the headline table (docs/performance.md, README.md)
    markers           the marker comments around generated blocks
    targets           which block goes where; rendering every target
    importer          `import DIR --commit SHA`
    cli               the command line
"""
