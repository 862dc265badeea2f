"""The common ground every stage stands on: switchscope's errors (each with
what to do), where the checkout, the firmware tree and the build folder are,
output files written atomically and never onto an input, and the external
tools a command needs (named with the Debian package that has them).

May import: nothing of switchscope. Imported by: every stage.
"""
