"""The figures stage: measurements and what they give. One measurement (build,
run, analyse into a Result), a user's ELF between two points, a logic
analyzer's capture, the matrices (sweep, suite) and the intrusion report; the
typed Result and the one reader of result files.

May import: run, build, catalog, decode, common. Imported by: present, cli.
"""
