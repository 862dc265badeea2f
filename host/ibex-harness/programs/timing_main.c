/* Runs timing.S's instruction groups once and prints the mcycle each mark read
 * ("<name> <mcycle>"), for comparison with the harness's log of the same marks. */
#include <stdint.h>

#include "output.h"

void timing_loop(uint32_t readings[12]);

static const char *const marks[12] = {"mark_alu", "mark_load", "mark_store", "mark_jump",
                                      "mark_taken", "mark_not_taken", "mark_mul", "mark_mulh",
                                      "mark_div", "mark_div_zero", "mark_compressed", "mark_end"};

int main(void) {
    uint32_t readings[12];
    timing_loop(readings);
    for (int i = 0; i < 12; ++i) {
        put_string(marks[i]);
        put_string(" ");
        put_decimal(readings[i]);
        put_string("\n");
    }
    return 0;
}
