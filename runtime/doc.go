// Package runtime is btrun's behavior-tree engine: it loads Drag[en]gine
// behavior-tree XML into an immutable template, binds the names in it to
// actions, conditions and state slots, and steps agents through it. It knows
// nothing of Lua, plugins, TOML or the command line; those fill a Registry
// and drive agents from outside.
//
// # For a Go game
//
// A game that embeds btrun through package game uses this package for its
// Go rules and its agents: TypedAction and TypedCondition (and TypedScorer,
// TypedHook) with a ParamSet declare a rule's typed parameters and state,
// registered in the Registry that game.Options.Register is given;
// AgentData is the game's own data of an agent (Lua's ctx.agent); an
// Agent's ID, Data, CursorLabel, Var and Stamp read its state, and Send and
// Value (Field for tables) send signals with data. Error, ErrorList and Pos
// are the errors with positions that loading and binding report.
//
// Alone, without package game: LoadFile or LoadBytes, a Registry, Bind and
// BoundTree.NewAgent, then Agent.Step (the package's example). The rest
// (the observers, rounds and workers, the Encode*/Decode* functions over
// the save codec, package runtime/savecodec) is what btrun's own packages
// are built from.
//
// # Data flow
//
//	LoadFile (XML -> *Tree) -> Registry (names -> Action/Condition) ->
//	Bind (*Tree + *Registry -> *BoundTree) -> BoundTree.NewAgent -> Agent.Step
//
// A Tree holds rules in a flat slice in document order, addressed by index,
// with parent, first-child and next-sibling indices. A BoundTree adds, per
// rule, the bound action and its hooks, and per condition a resolved kind
// (variable bit, timestamp test, or call) with its parameters already parsed,
// and a compact copy of the rules the step reads (hotRule). Both are never
// mutated after they are built and are shared by every agent. A tree that
// uses abort, timeout, cooldown, gates, log parameters, choice orders,
// parallels, repeat, attempts, enter/exit hooks or rules registered from Go
// (composites and decorators of a program's own: custom.go, TypedRule)
// also gets a per-rule feature table at bind time (features.go);
// a tree that uses none of them has none and pays nothing for them, and a
// rule that uses none costs nothing either (its hook bits are clear).
//
// # What an agent holds
//
// An Agent is a small struct of plain data: the cursor (a rule index), the
// actionFirstRun flag, the last result, its time, dt and step count, one slab
// of words for variables (a bitset), timestamps (float64 bits; NaN when
// unset) and signal marks, one word of built-in rule state (bt.wait's start
// time, bt.signal.wait's mark), and a lazily allocated extension for the
// host's values (Lua's ctx.state and ctx.memory, a plugin's state bytes) and
// the agent's random generator (rand.go). Trees with timeouts, cooldowns or
// choice orders get slab words for them too: when each rule with a timeout
// became active, when each rule with a cooldown was last left, each ordered
// choice's order, each counting rule's passes (repeat) and failures
// (attempts), and one bit per rule with a hook or log.start that says it
// started (hooks.go). An agent that entered a parallel has its lanes in the
// extension too, and one that received a signal its stimuli: per signal
// name, the data it carried and when it arrived (stimuli.go; signals carry
// data, a Value checked by CheckData, data.go). Saving an agent means
// writing those fields; nothing lives in the tree.
//
// An action may also handle signals while it runs (SignalHandler,
// handlers.go): a handler's result waits in the rule word, and the action
// bound to the rule gives it back at the next run, so the step loops know
// nothing of handlers. A game loop calls Agent.RunHandlers after a step for
// the signals an agent sent itself during it.
//
// A state machine (<stateMachine>, machine.go) holds no agent state of its
// own: its current state is the state whose rule holds the cursor (the
// agent's or a lane's), so saves, restores and hot reload carry it with the
// cursor, and the workers need nothing new. Its transitions on signals are
// taken when the signal is delivered, between steps, like a jump from
// outside (RunHandlers takes those of the signals an agent sent itself
// during its step).
//
// # How a step works
//
// Step is Drag[en]gine's stepBehaviorTree written as a state machine rather
// than recursion:
//
//  1. Run the cursor rule. Running ends the step.
//  2. If the rule moved the cursor (a list rule entering, advancing or
//     looping; a jump), run the new cursor, from 1.
//  3. Otherwise the rule finished: its parent runs next and sees the
//     result (flagBubbling with childRes; the cursor stays on the finished
//     child, which is how the parent knows where it is). Past the root the
//     step ends with the root's result and the cursor on the root.
//  4. Every rule run counts; when the count reaches the run-away limit on a
//     run that did not return Running, the step ends with ErrRunaway.
//
// A state machine is a list rule here: entered, it moves the cursor to its
// initial state's rule; when that rule finishes, the state's transition on
// the result moves the cursor to the target state's rule in the same step
// (step 2), or the machine finishes with the result (step 3). A transition
// on a signal never happens inside a step: the signal arrives between
// steps, the state's rule is left at once (its action cancelled, its rules
// left with "preempt") and the cursor arrives at the target state's rule,
// which the next step runs from 1, after the checks at its start. So a
// game's scheduled and world signals, delivered before the step at their
// time, take effect in that step; signals from other agents, and those an
// agent sends itself, in its next step.
//
// Because everything the loop needs lives in the agent (cursor, bubbling
// flag, child result, index of the condition being evaluated, run count), a
// step can stop in the middle: an Action or Condition that returns
// ErrPending pauses the step (Status Paused), and Agent.CompleteAction or
// Agent.CompleteCondition resumes it where it stopped. The plugin host uses
// this to collect the calls of many agents and send them as one batch.
// Agent.PausedAt says what a paused step waits for.
//
// Conditions are evaluated in order and short-circuit, only at the points
// SPEC §2 names: before an action or leaf rule runs, when a list rule is
// entered, and when a list rule moves on after a child finished. An action
// whose conditions fail while it is running is cancelled.
//
// # The code of a step: one loop, one chooser, decisions written once
//
// Every tree steps in one state machine, loop (step_loop.go), which runs
// the steps above for every rule kind and feature. Each decision of
// stepping is written once, as a small function the loop calls:
//
//   - step_rules.go: a list rule's entry (listEnters, enterList); what a
//     sequence or a choice does after a child (sequenceMove, choiceMove;
//     passDone for a pass that finished with success; listMoves carries a
//     move out, with its conditions checked again); an action's result
//     applied to the flags (actionResult, resultFlags); a rule's
//     conditions (testConds, one condition: evalCond); doNotFail
//     (notFail); whether a jump moves the cursor (takeJump: a jump to the
//     rule being run changes nothing); the run-away check (runawayAt);
//     walking past the root (pastRoot). The kinds other than actions run
//     in runList, runLeaf, runOrderedChoice (order.go), runParallel
//     (lanes.go) and runMachine (machine.go); an action's run is written
//     out in the loop.
//   - active.go: a rule let in at its first run since the cursor arrived
//     (letIn: its arrival checks; it becomes active), a let-in rule that
//     finished (ruleFinished), every way of leaving (leave, with how:
//     leaveHow), and moves of the cursor that are not the state machine's
//     own (moveTo: jumps and preemptions; jumpNow in lanes_jump.go applies
//     a jump, across lanes when the tree has parallels).
//   - interrupt.go: the checks at the start of a step, one walk for the
//     agent's path and its lanes' (beginStep runs them, and the gates'
//     step, before the cursor).
//
// What a rule asks beyond Drag[en]gine's stepping when it is let in or left
// (its cooldown, gate, timeout clock, log parameters) is a hook bit per
// rule (step_hot.go: ruleHooks), bound with the compact copy of the rules
// the loop reads (hotRule). The loop calls admit and leave only for rules
// that have one, so a rule that uses no feature costs a tree that has
// some nothing more than a tree without features.
//
// One fast path runs the commonest beginning of a step (step_fast.go): a
// choice without conditions over actions with at most one condition (Go
// functions, Lua and plugin actions, with or without Start and Cancel),
// run in one tight loop through the same decisions, storing
// the runs only where something reads them. Whether it runs is decided
// when the step begins (stepTo, fastAt): the step is quiet (no Observer,
// not explained) and two more runs fit under the run-away limit (one check
// of the Env), and its cursor's rule is one Bind marked (hotFast:
// markSiblings; rules with hooks, in lanes, or under a choice with
// conditions or an order are not). What a choice does after each child
// finished is decided at bind too (sibAfter); where the
// rules stop having that shape the loop goes on with the step. An Observer
// sees every run but changes nothing else: FuzzStep holds observed and
// quiet steps, and the fast path and the loop alone, to the same calls,
// results and state, on random trees saved and restored at a random step.
//
// # To add an attribute that changes stepping
//
// Each of the following is one place; a rule that does not use the
// attribute pays for none of it, and a tree that uses it steps in the same
// loop:
//
//   - something done when a rule is let in (becomes active): give the rule
//     a hook bit in ruleHooks (step_hot.go) and act in admit (active.go),
//     which letIn calls for rules with hookLetIn;
//   - something done when a rule starts: it has been let in and its
//     conditions have passed at its entry (its enter hook and log.start do:
//     start, hooks.go, for rules with hookStart): for list rules, where
//     listEnters reports true (its callers: enterList, enterOrderedChoice,
//     runParallel); for an action, in callAction where Start is called (its
//     first run); for success, running and yield, in runLeaf; and for the
//     rules a jump lands below, in moveTo;
//   - something done when a rule is left, whichever way (its exit hook, its
//     counts cleared): a hookLeave bit, and leave (active.go), which every
//     way of leaving reaches with its leaveHow (success, failure, abort,
//     timeout, preempt, jump, cancel, reset, remove), innermost first;
//   - what a sequence or choice does when a pass finished with success
//     (repeat's counted passes: movePass, resolved by passMove and counted
//     by countPass once the list started again):
//     passDone (step_rules.go), which the loop, ordered choices and the
//     fast path all decide with;
//   - what a let-in rule does when it finishes with failure (attempts'
//     retries: leaveFinished): ruleFinished (active.go), which the loop
//     calls for every let-in rule that finished; a rule with such an
//     attribute has a hook bit, so the fast path (which runs only rules
//     without hooks) leaves it to the loop;
//   - every condition evaluated (recording why): testConds and evalCond
//     (step_rules.go). The fast path and testConds decide the one-condition
//     shapes themselves (one ConditionFunc or variable, its negation and
//     mode folded in at bind time); a step that records would be treated
//     as observed (no fast path) and route testConds to checkConds;
//   - a new kind of rule (a slot running a grafted tree): a case of the
//     loop's switch and of the bound kinds (Kind), as runOrderedChoice and
//     runParallel are.
//
// # Interruption and choice orders
//
// For trees that use them, three files hook into the loop:
//
//   - active.go is the one place where rules become active and are left
//     (timeout clocks, cooldowns, gates, log parameters, parallel lanes),
//     and where the cursor moves to a rule of another branch (a jump, a
//     preemption). Every strict ancestor of the cursor is active; one flag
//     says whether the cursor itself is.
//   - interrupt.go runs the checks at the start of a step (abort self,
//     lower and both; timeouts) and applies an abort or a preemption. Its
//     condition calls pause and resume like any other (phaseWaitCheck).
//   - order.go draws a choice's order when it is entered (random,
//     weighted, score with scorers, which may pause too: CompleteScore).
//
// The loop itself only runs the checks first, the arrival checks of a rule
// the cursor came to (its cooldown and gate), and tells active.go when rules
// finish.
//
// # Gates and rounds
//
// Gates (gates.go, gate_agent.go, gates_save.go) are limits shared by the
// agents of a game: a rule with gate="NAME" takes the gate at its arrival
// and holds it while active. Their shared state is a Gates, which a game
// (or a Go embedder) creates for the agents that share it and gives them
// through Env.Gates; an agent's holds are slab bits like its cooldowns. A
// take pauses the step (phaseWaitGate) like a plugin call, and is decided
// when the round ends: Rounds (rounds.go) runs every agent's step until it
// ends or pauses, then lets each Resolver end the round (Gates.EndRound
// applies the round's releases, then grants or refuses its takes in the
// order of the round's agents; a plugin set sends its batch), then resumes
// the waiting agents in order, until every step has ended. Step alone is
// enough for an agent whose gates are its own (created without
// Env.Gates): it ends its rounds itself.
//
// Jumps requested during a call are applied after the call returns: a
// finished result is discarded and the target runs in the same step; Running
// ends the step and the target runs next step. A jump between steps is
// applied at once. Either way an action that last returned Running and is
// left without finishing gets its Cancel hook.
//
// # Parallel lanes
//
// A <parallel> runs each child in a lane: a context with its own cursor,
// actionFirstRun flag and current-rule state (rule word, host value, state
// bytes). The context being run sits in the agent's own fields; lanes.go
// swaps the others in and out (switchTo), so everything above works in a
// lane unchanged, and a step can pause at a call in a lane and resume
// there. The loop gives each running lane a turn in document order
// (errSwitched begins and ends a turn; a lane whose rule returns
// Running waits instead of ending the step), the parallel checks its
// success and failure counts after each turn and cancels the lanes still
// running when it finishes. lanes_jump.go moves jumps to the context that
// holds their target; interrupt.go walks each running lane's path after
// the path to the parallel; lanes_save.go saves the lanes. Lanes are
// allocated in the agent's extension at its first entry into a parallel:
// trees without parallels pay nothing, and agents that never enter one
// stay as small. Agent.Lanes lists an agent's lanes and their cursors.
//
// # Slots and why
//
// A <slot> runs the tree grafted into it for the agent (slots.go). The
// design, and why: every (slot, tree) pair the agents of a template take
// is a block with a fixed place in the template's universe (the template's
// rules at their own indices, then one block per pair in the order pairs
// were first needed), and an agent runs a view of a universe in which each
// slot's child is the block of the pair it holds. A new pair binds a new
// universe with one block more; bindFeatures lays slab words out in rule
// order, so every earlier block keeps its indices and its words. Taking
// another tree, at a slot's entry anywhere in a step (in a lane, under an
// abort, in a retry), is therefore a pointer to another view and, for a
// newer universe, a longer slab and more lane slots: no index moves, no
// state is copied rule by rule, and a feature added later works in a
// grafted tree without a line in slots.go. Memory is bounded by
// construction: one universe per pair, one view per combination of pairs
// the slots hold, each made once and shared. The alternatives were
// weighed: windows of a fixed size per slot need the largest tree a slot
// may hold before any is grafted; taking trees only between steps breaks
// "a graft takes effect at the slot's next entry" (try ten objects in one
// step); a grafted tree run as its own bound tree in a nested context
// (like a lane) would give every rule index a tree beside it in observers,
// traces, saves and the live view. The quiet path pays nothing: a slot is
// a hook bit (hookSlot), and a tree without slots has no table. A view
// has its own fingerprint (the template's and its trees') and shape, so a
// reload of a grafted tree alone carries by id, and a restore checks every
// saved tree and graft as Graft does. Saves name each slot's tree
// (slots_save.go). With Env.Explain, the places that decide record why
// (explain.go): checkConds, enterOrderedChoice, refuses and decideTake.
//
// # Saves and reloads
//
// snapshot.go turns an agent into a Snapshot (names, not slots: variables,
// timestamps and signals by name, the cursor and lanes' cursors by id,
// clocks, cooldowns and orders by label) and back; save.go frames many of
// them with the host's state. A hot reload carries agents over to edited
// versions of their trees in memory (carry.go): a RuleMap (remap.go) finds
// each rule of the old version in the new one, by id or else by its place
// under its closest ancestor with an id, and says which agents lose their
// place (their rule, or a running lane's, is gone), which the caller resets
// (by the old version) before the carry.
//
// # Concurrency
//
// Trees, BoundTrees and Registries (once filled) may be shared by any number
// of goroutines. An Agent belongs to one goroutine at a time, and agents
// sharing an Env must be stepped from one goroutine at a time (the Env holds
// the step's scratch buffer). A Gates is changed only by EndRound and by
// releases between steps (Reset, Close, a jump from outside a step, a
// restore), from the goroutine that ends the rounds; during a round agents
// only read it and keep their takes and releases in their own state, so the
// agents of one round may step on several goroutines, each with its own
// Env sharing the Gates. Workers does that: it steps each agent on its
// worker's goroutine and ends every round on the calling one, with the
// resolvers given the round's agents in order, so a run is the same for any
// number of workers (workers.go).
//
// # Errors
//
// Every error is an *Error (or an ErrorList of them) carrying the file
// position, the rule label and the agent, and wrapping one of the Err*
// sentinels, so errors.Is works across the package boundary.
package runtime
