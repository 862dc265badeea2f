/* The harness's interrupt devices (host/verilator-harness/harness.cc) seen
 * from the core: the software interrupt register, the latency timer on the
 * fast interrupt and on the NMI. Each vector's first instruction reads
 * mcycle, so a handler knows the cycle it was entered in; each routine
 * below reads mcycle just before its store to a device, so the program knows
 * the store's cycle: a `csrr` is one cycle (pipeline_details.rst, CSR access
 * stalls 0), the store enters ID/EX in the next.
 *
 *   uint32_t irq_soft_in_nops(void);                  returns M: SOFT_IRQ raised at M + 1
 *   uint32_t irq_arm_in_nops(uint32_t n, uint32_t r); returns M: n stored to register r at M + 1
 *   uint32_t irq_arm_masked(uint32_t n, uint32_t r, uint32_t *unmasked);
 *        the same with mstatus.MIE clear until a csrsi, whose cycle goes to *unmasked
 *
 * The store is followed by 64 nops (integer computation, 1 cycle each), in which
 * the interrupt is taken and to which its handler returns. The handlers use t4-t6
 * only, which these routines leave alone. 32-bit encodings only (norvc). */

    .option norvc
    .section .text.interrupts, "ax"
    .balign 256
    .globl irq_vectors
irq_vectors:                    /* vectored: interrupt n enters at + 4n, exceptions at + 0 */
    j irq_unexpected            /* 0: exceptions */
    j irq_unexpected
    j irq_unexpected
    .globl mark_soft_vector
mark_soft_vector:               /* 3: irq_software_i */
    csrr t6, mcycle
    j irq_soft_handler          /* 4: no interrupt of Ibex's */
    .rept 11                    /* 5-15 */
    j irq_unexpected
    .endr
    .globl mark_fast_vector
mark_fast_vector:               /* 16: irq_fast_i[0], the latency timer */
    csrr t6, mcycle
    j irq_latency_handler       /* 17: irq_fast_i[1], which the harness never raises */
    .rept 13                    /* 18-30 */
    j irq_unexpected
    .endr
    .globl mark_nmi_vector
mark_nmi_vector:                /* 31: irq_nm_i */
    csrr t6, mcycle
    j irq_nmi_handler

irq_soft_handler:
    lui t5, 0x20
    sw zero, 0x14(t5)           /* lower irq_software_i: the core does not */
    j irq_note
irq_latency_handler:
irq_nmi_handler:
    lui t5, 0x20
    sw zero, 0x18(t5)           /* stop the latency timer, either line */
irq_note:                       /* the cycle entered and mcause, for the program */
    lui t5, %hi(irq_entered)
    sw t6, %lo(irq_entered)(t5)
    csrr t4, mcause
    lui t5, %hi(irq_cause)
    sw t4, %lo(irq_cause)(t5)
    mret

irq_unexpected:
    lui t5, %hi(irq_cause)
    li t4, -1
    sw t4, %lo(irq_cause)(t5)
    lui t5, 0x20                /* halt with code 1 */
    li t4, 0x101
    sw t4, 8(t5)
1:  j 1b

    .globl irq_soft_in_nops
irq_soft_in_nops:
    lui a1, 0x20
    li a2, 1
    csrr a0, mcycle
    sw a2, 0x14(a1)
    .rept 64
    nop
    .endr
    ret

    .globl irq_arm_in_nops
irq_arm_in_nops:
    mv a2, a0
    csrr a0, mcycle
    sw a2, 0(a1)
    .rept 64
    nop
    .endr
    ret

    .globl irq_arm_masked
irq_arm_masked:
    mv a3, a0
    csrci mstatus, 8
    csrr a0, mcycle
    sw a3, 0(a1)
    .rept 48
    nop
    .endr
    csrr a4, mcycle
    csrsi mstatus, 8            /* at a4 + 1 */
    .rept 64
    nop
    .endr
    addi a4, a4, 1
    sw a4, 0(a2)
    ret

    .section .bss
    .balign 4
    .globl irq_entered, irq_cause
irq_entered: .word 0
irq_cause: .word 0
