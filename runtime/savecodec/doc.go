// Package savecodec is the byte-level codec of btrun's saves: Encoder and
// Decoder (varints, floats, strings through a string table written once,
// blobs), the encoding of values piece by piece (ValueNil ... TableNext), and
// the container frame a save file is (WriteContainer, ReadContainer: magic,
// version, string table, body, CRC).
//
// It is the engine's side of saves, for the hosts that keep state in them
// (luabind's Lua values, package game's world and cluster messages,
// runtime's snapshots): a game that embeds btrun saves with game.Game.Save
// and never needs it. It is public so that those packages can share it, and
// has no compatibility promise of its own (docs/embedding.md, "What is
// promised"); what a save file holds is described in docs/saves.md and kept
// loadable across versions.
//
// It imports nothing of btrun: package runtime builds its snapshots and
// Values on it (runtime.EncodeSnapshot, runtime.EncodeValue,
// runtime.DecodeValue, runtime.DecodeValueHead).
//
// An Encoder or a Decoder is used by one goroutine at a time. A Decoder
// never panics and never allocates more than its input can justify; its
// errors are sticky and wrap ErrCorrupt.
package savecodec
