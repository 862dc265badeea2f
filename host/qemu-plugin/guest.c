/*
 * The guest as the callbacks read it: its registers (found by name once its
 * vCPU starts), its memory, and where its exceptions enter (handler=: on a
 * Cortex-M the vector table's handlers, on RISC-V the trap tables' entries).
 * QEMU 10.0 reports no exception entry to plugins: an entry is a block that
 * starts at a handler without having been branched to.
 */
#include <stdlib.h>
#include <string.h>

#include "switchscope_plugin.h"

#define MAX_HANDLERS 256

static uint64_t handlers[MAX_HANDLERS];
static int handler_count;

static struct qemu_plugin_register *registers[16];
static struct qemu_plugin_register *xpsr_register;
static struct qemu_plugin_register *psp_register;
static struct qemu_plugin_register *ibex_registers[32]; /* x1-x31 by their ABI names */
static struct qemu_plugin_register *mepc_register;
static GByteArray *register_buffer;

int guest_argument(const char *arg)
{
    if (strncmp(arg, "handler=", 8) || handler_count >= MAX_HANDLERS)
        return 0;
    handlers[handler_count++] = strtoull(arg + 8, NULL, 0) & ~1ull;
    return 1;
}

int is_handler(uint64_t address)
{
    for (int i = 0; i < handler_count; i++)
        if (handlers[i] == address)
            return 1;
    return 0;
}

void guest_find_registers(int riscv)
{
    static const char *const names[16][2] = {
        {"r0", ""}, {"r1", ""}, {"r2", ""}, {"r3", ""}, {"r4", ""}, {"r5", ""}, {"r6", ""}, {"r7", ""},
        {"r8", ""}, {"r9", ""}, {"r10", ""}, {"r11", ""}, {"r12", ""}, {"sp", "r13"}, {"lr", "r14"}, {"pc", "r15"},
    };
    GArray *found = qemu_plugin_get_registers();
    const qemu_plugin_reg_descriptor *descriptors = (const qemu_plugin_reg_descriptor *)found->data;
    static const char *const abi_names[32] = {
        "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "fp", "s1", "a0", "a1", "a2", "a3", "a4", "a5",
        "a6", "a7", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6",
    };
    for (unsigned i = 0; i < found->len; i++) {
        if (riscv) {
            if (!strcmp(descriptors[i].name, "mepc"))
                mepc_register = descriptors[i].handle;
            for (int r = 1; r < 32; r++)
                if (!strcmp(descriptors[i].name, abi_names[r]) || (r == 8 && !strcmp(descriptors[i].name, "s0")))
                    ibex_registers[r] = descriptors[i].handle;
            continue;
        }
        if (!strcmp(descriptors[i].name, "xpsr"))
            xpsr_register = descriptors[i].handle;
        if (!strcmp(descriptors[i].name, "psp"))
            psp_register = descriptors[i].handle;
        for (int r = 0; r < 16; r++)
            if (!registers[r] && (!strcmp(descriptors[i].name, names[r][0]) || !strcmp(descriptors[i].name, names[r][1])))
                registers[r] = descriptors[i].handle;
    }
    register_buffer = g_byte_array_new();
}

/* A register's 32-bit value; 0 where QEMU has no such register. */
static uint32_t read_handle(struct qemu_plugin_register *handle)
{
    uint32_t value = 0;
    g_byte_array_set_size(register_buffer, 0);
    if (handle && qemu_plugin_read_register(handle, register_buffer) >= 4)
        memcpy(&value, register_buffer->data, 4);
    return value;
}

uint32_t read_register(unsigned number) { return number > 15 ? 0 : read_handle(registers[number]); }

uint32_t read_xpsr(void) { return read_handle(xpsr_register); }

uint32_t read_ibex_register(unsigned number) { return number < 32 ? read_handle(ibex_registers[number]) : 0; }

uint32_t read_mepc(void) { return read_handle(mepc_register); }

GByteArray *read_memory(uint64_t address, size_t bytes)
{
    g_byte_array_set_size(register_buffer, 0);
    return qemu_plugin_read_memory_vaddr(address, register_buffer, bytes) ? register_buffer : NULL;
}

uint32_t read_word(uint32_t address)
{
    uint32_t value = 0;
    GByteArray *read = read_memory(address, 4);
    if (read && read->len >= 4)
        memcpy(&value, read->data, 4);
    return value;
}

/* In a handler's first instruction: where the exception entry stacked its frame, on the process stack
 * or the main one as EXC_RETURN says. */
uint32_t stacked_frame(void)
{
    uint32_t exc_return = read_register(14), frame = read_register(13);
    if ((exc_return & 4u) && psp_register) { /* the frame went onto the process stack */
        g_byte_array_set_size(register_buffer, 0);
        if (qemu_plugin_read_register(psp_register, register_buffer) >= 4)
            memcpy(&frame, register_buffer->data, 4);
    }
    return frame;
}

/* The address the entry stacked: the instruction it interrupted. */
uint32_t stacked_pc(void) { return read_word(stacked_frame() + 24u); }
