package lua

// btrun patch "numberblock" (third_party/PATCHES.md): a state boxes the
// numbers its scripts make (results of arithmetic stored in tables or
// passed to functions) into blocks of numberBlock floats, one allocation
// per block (allocator.LNumber2I). Upstream's blocks of 32 were a third
// of the example game's allocations per agent-step; blocks of 128 take
// that to a twelfth. A block is freed when none of its numbers is
// referenced any more, so a larger block can keep more memory alive; the
// example game's bytes per agent did not change (btrun bench).
const numberBlock = 128
