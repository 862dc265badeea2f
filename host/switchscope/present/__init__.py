"""The present stage: what a person or a CI job reads. Progress and tables on
the terminal, compare (with its JUnit and JSON), the HTML report, the suite's
pages, and svg.py, the one module that draws figures.

May import: figures, run, build, catalog, decode, common. Imported by: cli.
"""
