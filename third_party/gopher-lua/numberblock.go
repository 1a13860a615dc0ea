package lua

// btrun patch "numberblock" (third_party/PATCHES.md): a state boxes the
// numbers its scripts make (results of arithmetic stored in tables or
// passed to functions) into blocks of numberBlock floats, one allocation
// per block (allocator.LNumber2I). Upstream's blocks of 32 were a third of
// the example game's allocations per agent-step. Blocks of 64 (512 bytes)
// take that to a sixth; blocks of 128 (1 KB) cut the allocations further
// but cost the collector more than they saved (about 600 instructions per
// agent-step): past 512 bytes Go's collector no longer handles an object
// with the small objects of its span, and every live number in a block
// keeps the whole block. A block is freed when none of its numbers is
// referenced any more.
const numberBlock = 64
