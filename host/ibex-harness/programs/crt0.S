/* Start-up for Ibex's simple_system: the vector table at the boot address
 * (0x100000) and the reset entry 0x80 past it, where Ibex starts.
 * Ibex has vectored interrupts only: trap n enters at mtvec + 4n (exceptions
 * at +0), so every entry jumps to one handler, `trap_entry`, which reads
 * mcause; the linker script makes it `halt_on_trap` unless the program's
 * link names another (FreeRTOS: freertos_risc_v_trap_handler). */

    .section .vectors, "ax"
    .option norvc               /* each entry one 4-byte jump */
    .globl _vectors
_vectors:
    .rept 32
    j trap_entry
    .endr

    .globl _start
_start:                         /* boot address + 0x80 */
    la sp, __stack_top
    .option push
    .option norelax             /* gp cannot be relaxed against itself */
    la gp, __global_pointer$
    .option pop
    la t0, __bss_start
    la t1, __bss_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  call main
    /* fall into halt: main's return ends the simulation */

    .globl halt
halt:
    li t0, 0x20008              /* simulator control: writing 1 halts */
    li t1, 1
    sw t1, 0(t0)
3:  j 3b

    .globl halt_on_trap
halt_on_trap:                   /* an unexpected trap: say so, then halt */
    li t0, 0x20000
    la t1, trap_message
4:  lbu t2, 0(t1)
    beqz t2, halt
    sw t2, 0(t0)
    addi t1, t1, 1
    j 4b

    .section .rodata
trap_message:
    .asciz "unexpected trap\n"
