package sdk

import (
	"context"

	"github.com/hashicorp/go-plugin"
)

// This file is the contract shared by plugins and the host (go-plugin's
// examples/grpc/shared/interface.go): the handshake, the versioned plugin
// set and the wire-neutral Service with its Go types. The gRPC adapters
// translate between these types and the generated protobuf messages; nothing
// else touches protobuf.

// ProtocolVersion is the version of btrun's plugin protocol. A host and a
// plugin must speak the same version; go-plugin negotiates it in the
// handshake and refuses a mismatch.
const ProtocolVersion = 1

// Version is the SDK's version, reported by Describe. 0.2.0 added scorers,
// 0.3.0 signal data (Call.SendData, Action.Stimuli, Call.Stimulus):
// compatible extensions of protocol version 1 (see plugin.proto).
const Version = "0.3.0"

// PluginKey is the name of btrun's service in the go-plugin plugin set.
const PluginKey = "btrun"

// Handshake is the go-plugin handshake of btrun plugins. The magic cookie is
// not a secret: it lets a plugin executable started by hand say that it is a
// plugin, and lets the host tell a non-plugin from a plugin.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "BTRUN_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "b7c3a1e0-btrun-behavior-tree-plugin",
}

// PluginSets is the versioned plugin set: the go-plugin plugins a host or a
// plugin offers for each protocol version. impl is nil on the host side.
func PluginSets(impl Service) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {PluginKey: &GRPCPlugin{Impl: impl}},
	}
}

// Service is what travels over the wire. The SDK implements it on the
// plugin side from a Plugin; the gRPC client adapter implements it on the
// host side. Implementations must be safe for concurrent use.
type Service interface {
	// Describe lists what the plugin provides.
	Describe(ctx context.Context) (*Description, error)
	// Call runs one call: an action (req.Kind == KindAction), a condition,
	// a scorer or a cancel hook. site describes where it comes from
	// (req.Site is ignored).
	Call(ctx context.Context, site *Site, req *Request) (*Reply, error)
	// RunBatch runs b.Calls (actions, conditions and scorers) and returns
	// one reply per call, in order, appended to out[:0]. Implementations
	// may reuse the storage of out's replies and of their own: the replies'
	// Writes and Effects are valid until the next RunBatch.
	RunBatch(ctx context.Context, b *Batch, out []Reply) ([]Reply, error)
	// Ping does nothing; it measures the raw round trip.
	Ping(ctx context.Context) error
}

// Description is a plugin's Describe reply.
type Description struct {
	Plugin     string
	SDKVersion string
	Actions    []ActionInfo
	Conditions []ConditionInfo
	Scorers    []ScorerInfo
}

// ActionInfo declares one action on the wire.
type ActionInfo struct {
	Name      string
	Reads     []string // agent fields sent with each call, in order
	Writes    []string // agent fields a reply may set, in order
	HasStart  bool
	HasCancel bool
	Doc       string
	Params    []ParamInfo // nil: not declared
	Stimuli   []string    // signals whose stimuli each call carries, in order
}

// ConditionInfo declares one condition on the wire.
type ConditionInfo struct {
	Name   string
	Reads  []string
	Doc    string
	Params []ParamInfo // nil: not declared
}

// ScorerInfo declares one scorer on the wire.
type ScorerInfo struct {
	Name  string
	Reads []string
}

// Param is one rule parameter.
type Param struct {
	Name  string
	Value string
}

// Site is an action, condition or scorer name at a rule, with the rule's
// label and parameters (sorted by name). A scorer's rule is the child of a
// score choice that it scores.
type Site struct {
	Name   string
	Rule   string
	Params []Param
}

// CallKind says what a Request asks for.
type CallKind uint8

const (
	KindAction CallKind = iota
	KindCondition
	KindCancel
	KindScorer
)

// ValueKind is the type of an agent field's value.
type ValueKind uint8

const (
	ValueUnset  ValueKind = iota // absent in a call; unchanged in a reply
	ValueNumber                  // float64
	ValueString
	ValueBool
	ValueNil // in a reply: delete the field
)

// Value is an agent field's value on the wire.
type Value struct {
	Kind ValueKind
	Num  float64
	Str  string
	Bool bool
}

// Any returns the value as float64, string, bool or nil; ok is false when
// the value is unset.
func (v Value) Any() (x any, ok bool) {
	switch v.Kind {
	case ValueNumber:
		return v.Num, true
	case ValueString:
		return v.Str, true
	case ValueBool:
		return v.Bool, true
	case ValueNil:
		return nil, true
	}
	return nil, false
}

// Request is one agent's call.
type Request struct {
	Kind     CallKind
	Site     uint32 // in a Batch: index into Batch.Sites
	Agent    string
	FirstRun bool
	Time     float64
	Dt       float64
	State    []byte     // the state bytes returned last time for this rule
	Fields   []Value    // the declared reads, in declaration order
	Stimuli  []Stimulus // actions: the agent's stimuli of ActionInfo.Stimuli it holds, in that order
}

// Batch is many calls in one round trip. Calls of many agents at one rule
// share one Site.
type Batch struct {
	Sites []Site
	Calls []Request
}

// Reset empties the batch, keeping its storage.
func (b *Batch) Reset() {
	b.Sites = b.Sites[:0]
	b.Calls = b.Calls[:0]
}

// Status is an action's result.
type Status uint8

const (
	Success Status = iota + 1
	Failure
	Running
)

func (s Status) String() string {
	switch s {
	case Success:
		return "success"
	case Failure:
		return "failure"
	case Running:
		return "running"
	}
	return "invalid"
}

// EffectKind is the kind of an Effect.
type EffectKind uint8

const (
	EffectSignal     EffectKind = iota + 1 // send signal Name to To ("" is the agent itself), carrying Data
	EffectSetVar                           // set variable Name to Flag
	EffectSetStamp                         // set timestamp Name to the agent's time
	EffectClearStamp                       // unset timestamp Name
	EffectLog                              // write Name to the agent's log
	EffectGraft                            // graft the game's tree To into the agent's slot Name
	EffectUngraft                          // give slot Name back its default tree
)

// Effect is one change a reply asks of the agent, applied in order.
type Effect struct {
	Kind EffectKind
	Name string
	To   string
	Flag bool
	Data Data // EffectSignal: what the signal carries
}

// Reply is the answer to one call. When Err is set the call failed and
// nothing else applies.
type Reply struct {
	Status   Status  // actions
	OK       bool    // conditions
	Score    float64 // scorers
	StateSet bool    // State holds the rule's new state bytes
	State    []byte
	Writes   []Value // the declared writes, in declaration order
	Effects  []Effect
	Jump     string
	Err      string
}
