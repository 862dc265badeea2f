/* ibex: what board_config.h needs as the text on simple_system
 * (ibex-qemu's folder has virt's; the rest of the machine is link.ld's). */
#ifndef BOARD_MACHINE_H
#define BOARD_MACHINE_H

#define BOARD_SCOPE_PIN "ctrl+0x10"   /* board.toml [scope] pin */

#endif
