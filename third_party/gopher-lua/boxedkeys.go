package lua

// btrun patch "boxedkeys" (third_party/PATCHES.md): a table's key list
// holds its keys as LValues, so a string key new to a table was boxed
// into a new interface value, a heap allocation, at every first set (upstream's
// RawSetString). A script's assignment t.name = v names a constant of its
// function, which the compiler boxed once: the VM (OP_SETTABLEKS,
// OP_SETGLOBAL) and RawSet/RawSetH, which get the key boxed, hand it on to
// LTable.setString, which boxes only when given none. A script that fills
// a fresh table at each step then allocates nothing for its keys.
