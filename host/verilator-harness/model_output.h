// Forced into every C++ file of the model (build/verilator.py passes -include): the
// model's own messages ($display: the tracer's notes, the halt notice) go to
// stderr, so stdout carries only what the program writes to the output register.
#include <cstdio>
#define VL_PRINTF(...) std::fprintf(stderr, __VA_ARGS__)
