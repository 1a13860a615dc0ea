package runtime

// Every agent has a random generator of its own, so that one agent's draws
// never shift another's: adding an agent, or stepping agents on other
// threads, leaves every other agent's numbers as they were. Choice orders
// (random, weighted) draw from it, and so do hosts: luabind's bt.random and
// math.random called for an agent, a plugin or Go code through Agent.Rand.
//
// The generator is SplitMix64, written out here so that any implementation
// (and a Go embedder) draws the same numbers:
//
//	state  starts at seed XOR fnv1a64(agent id)  (the seed as its 64-bit two's complement)
//	next   state += 0x9E3779B97F4A7C15; z := state
//	       z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
//	       z = (z ^ z>>27) * 0x94D049BB133111EB
//	       return z ^ z>>31
//	float  (next() >> 11) × 2^-53, in [0, 1)
//
// The generator is created on first use from Env.Seed and the agent's id,
// and never reseeded by the runtime (not by an error reset or a restart at
// the root); a restore sets the state the save holds.

// Rand is a SplitMix64 generator. Its whole state is one uint64; any value
// is a valid state.
type Rand struct{ state uint64 }

// NewRand returns a generator in the given state.
func NewRand(state uint64) Rand { return Rand{state} }

// AgentRandState is the state an agent's generator starts in: the seed (as
// its 64-bit two's complement) XOR the 64-bit FNV-1a hash of the id's bytes.
func AgentRandState(seed int64, id string) uint64 {
	h := uint64(0xcbf29ce484222325) // FNV-1a offset basis
	for i := 0; i < len(id); i++ {
		h ^= uint64(id[i])
		h *= 0x100000001b3 // FNV-1a prime
	}
	return uint64(seed) ^ h
}

// Uint64 returns the next 64 random bits.
func (r *Rand) Uint64() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Float64 returns a number in [0, 1) with 53 random bits.
func (r *Rand) Float64() float64 { return float64(r.Uint64()>>11) * (1.0 / (1 << 53)) }

// State is the generator's state, for saving it.
func (r *Rand) State() uint64 { return r.state }

// SetState puts the generator in a state State returned.
func (r *Rand) SetState(s uint64) { r.state = s }

// Rand is the agent's own generator, created from Env.Seed and the agent's
// id at its first use. The pointer stays valid for the agent's life.
func (a *Agent) Rand() *Rand {
	x := a.extra()
	if !x.rngReady {
		x.rng = NewRand(AgentRandState(a.env.Seed, a.id))
		x.rngReady = true
	}
	return &x.rng
}

// randState is the generator's state without creating it: what a save holds.
func (a *Agent) randState() uint64 {
	if a.ext != nil && a.ext.rngReady {
		return a.ext.rng.state
	}
	return AgentRandState(a.env.Seed, a.id)
}
