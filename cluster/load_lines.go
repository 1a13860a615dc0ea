package cluster

// LoadLinesHost is a ShardHost whose load may write lines the run keeps:
// a load on a conductor that holds no copies of the agents (the shards'
// restores are the only ones, and their cancel hooks write what one
// process's load writes). After Load, LoadLines adds what the load kept,
// PhaseSave by place, to the reply; the conductor writes it.
type LoadLinesHost interface {
	LoadLines(out *Out) error
}
