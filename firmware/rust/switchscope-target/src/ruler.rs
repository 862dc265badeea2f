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
ruler_block!(block_1000, 1000);

const BLOCKS: [(u16, fn()); 7] =
    [(0, block_0), (1, block_1), (2, block_2), (3, block_3), (10, block_10), (100, block_100), (1000, block_1000)];

/// Time block `seq` mod 7; returns its N, the sample's tag.
pub fn run(seq: u32) -> u16 {
    let (size, block) = BLOCKS[(seq % 7) as usize];
    block();
    size
}
