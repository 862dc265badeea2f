//! The ruler: blocks of N no-ops timed with the probe, each in a function of
//! its own so that the compiler cannot move other work into the block. After
//! the calibrated overhead is taken off, every sample must read exactly N.

use crate::probe;

macro_rules! ruler_block {
    ($name:ident, $n:literal) => {
        #[inline(never)]
        fn $name() {
            probe::open();
            unsafe { core::arch::asm!(concat!(".rept ", stringify!($n), "\nnop\n.endr"), options(nostack, preserves_flags)) };
            probe::close();
        }
    };
}

ruler_block!(block_0, 0);
ruler_block!(block_1, 1);
ruler_block!(block_2, 2);
ruler_block!(block_3, 3);
ruler_block!(block_10, 10);
ruler_block!(block_100, 100);
#[cfg(not(armv6m))]
ruler_block!(block_1000, 1000);
// ARMv6-M: the block's function keeps its literals after it, and a literal
// load reaches only 1 KB forward: 400 no-ops is the longest block, as in C
#[cfg(armv6m)]
ruler_block!(block_400, 400);

#[cfg(not(armv6m))]
const BLOCKS: [(u16, fn()); 7] =
    [(0, block_0), (1, block_1), (2, block_2), (3, block_3), (10, block_10), (100, block_100), (1000, block_1000)];
#[cfg(armv6m)]
const BLOCKS: [(u16, fn()); 7] =
    [(0, block_0), (1, block_1), (2, block_2), (3, block_3), (10, block_10), (100, block_100), (400, block_400)];

/// Time block `seq` mod 7; returns its N, the sample's tag.
pub fn run(seq: u32) -> u16 {
    let (size, block) = BLOCKS[(seq % 7) as usize];
    block();
    size
}
