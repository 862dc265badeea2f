/* ibex-qemu: what board_config.h needs as the text on QEMU's virt
 * (the rest of the machine is this folder's link.ld). */
#ifndef BOARD_MACHINE_H
#define BOARD_MACHINE_H

#define BOARD_SCOPE_PIN "ram+0x100000"    /* board.toml [scope] pin: the RAM word past the image's megabyte */

#endif
