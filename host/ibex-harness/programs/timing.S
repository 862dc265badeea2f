/* A hand-written run of known instructions between watched labels, for
 * checking the model's cycles against Ibex's pipeline documentation.
 * Each mark_* label is a `csrr sN, mcycle`: the harness logs the cycle each
 * mark retires on, and the program keeps what it read, so a group's cost is
 * the difference of two marks less one (the next mark's csrr, 1 cycle).
 *
 *   void timing_loop(uint32_t readings[12]);
 *
 * 32-bit encodings only (norvc) except in the compressed group, so every
 * instruction and every jump target is word aligned. */

    .section .text.timing, "ax"
    .option norvc
    .balign 4
    .globl timing_loop
timing_loop:
    addi sp, sp, -64
    sw s0, 0(sp)
    sw s1, 4(sp)
    sw s2, 8(sp)
    sw s3, 12(sp)
    sw s4, 16(sp)
    sw s5, 20(sp)
    sw s6, 24(sp)
    sw s7, 28(sp)
    sw s8, 32(sp)
    sw s9, 36(sp)
    sw s10, 40(sp)
    sw s11, 44(sp)
    la t2, timing_data
    li t3, 7                    /* divisor */
    li t4, 1000                 /* dividend */
    li a2, 3
    li a3, 5

    .globl mark_alu, mark_load, mark_store, mark_jump, mark_taken, mark_not_taken
    .globl mark_mul, mark_mulh, mark_div, mark_div_zero, mark_compressed, mark_end
mark_alu:                       /* 8 integer ops */
    csrr s0, mcycle
    .rept 8
    addi a1, a1, 1
    .endr
mark_load:                      /* 4 independent loads */
    csrr s1, mcycle
    lw a4, 0(t2)
    lw a5, 4(t2)
    lw a6, 8(t2)
    lw a7, 12(t2)
mark_store:                     /* 4 stores */
    csrr s2, mcycle
    sw a2, 16(t2)
    sw a3, 20(t2)
    sw a2, 24(t2)
    sw a3, 28(t2)
mark_jump:                      /* 4 jumps, each to the next word */
    csrr s3, mcycle
    .rept 4
    jal x0, 1f
1:
    .endr
mark_taken:                     /* 4 taken branches */
    csrr s4, mcycle
    .rept 4
    beq x0, x0, 1f
1:
    .endr
mark_not_taken:                 /* 4 branches not taken */
    csrr s5, mcycle
    .rept 4
    bne x0, x0, mark_end
    .endr
mark_mul:                       /* 4 MUL, independent */
    csrr s6, mcycle
    mul a4, a2, a3
    mul a5, a2, a3
    mul a6, a2, a3
    mul a7, a2, a3
mark_mulh:                      /* 2 MULH */
    csrr s7, mcycle
    mulh a4, a2, a3
    mulh a5, a2, a3
mark_div:                       /* 1 DIV by a non-zero divisor */
    csrr s8, mcycle
    div t5, t4, t3
mark_div_zero:                  /* 1 DIV by zero */
    csrr s9, mcycle
    div t6, t4, zero
mark_compressed:                /* 8 compressed integer ops */
    csrr s10, mcycle
    .option push
    .option rvc
    .rept 8
    c.addi a1, 1
    .endr
    .option pop
mark_end:
    csrr s11, mcycle

    sw s0, 0(a0)
    sw s1, 4(a0)
    sw s2, 8(a0)
    sw s3, 12(a0)
    sw s4, 16(a0)
    sw s5, 20(a0)
    sw s6, 24(a0)
    sw s7, 28(a0)
    sw s8, 32(a0)
    sw s9, 36(a0)
    sw s10, 40(a0)
    sw s11, 44(a0)
    lw s0, 0(sp)
    lw s1, 4(sp)
    lw s2, 8(sp)
    lw s3, 12(sp)
    lw s4, 16(sp)
    lw s5, 20(sp)
    lw s6, 24(sp)
    lw s7, 28(sp)
    lw s8, 32(sp)
    lw s9, 36(sp)
    lw s10, 40(sp)
    lw s11, 44(sp)
    addi sp, sp, 64
    ret

    .section .bss
    .balign 16
timing_data:
    .space 32
