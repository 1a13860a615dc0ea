---@meta bt
-- Editor annotations for btrun's Lua API (LuaLS / EmmyLua), so that editors
-- complete and check `bt`, `ctx` and `params`. btrun never runs this file:
-- files named *.d.lua are skipped when scripts load. The manual is
-- docs/lua.md.
--
-- It describes the API only. A game describes its own ctx.agent fields in
-- a *.d.lua of its own that adds to bt.AgentData (the example game's is
-- scripts/ai/game.d.lua):
--
--   ---@class bt.AgentData
--   ---@field hp number the agent's health

---@alias bt.Status "success"|"failure"|"running"

---The btrun module: `local bt = require("bt")` (also the global `bt`).
---@class btmodule
---@field SUCCESS bt.Status the action finished and succeeded
---@field FAILURE bt.Status the action finished and failed
---@field RUNNING bt.Status the action is not done: it runs again next step
local bt = {}

---The long form of an action: start before the first run each time the
---cursor arrives at the rule, cancel when the rule is left while running;
---on gives signal handlers, by signal name, called when the agent receives
---the signal while the action runs (return bt.SUCCESS or bt.FAILURE to
---finish the action at the next step without calling run; nil to go on;
---data is the signal's data, nil when it carried none);
---params lists the rule parameters it reads (names, or name = description),
---so that `btrun validate` can warn about a parameter nothing reads.
---@class bt.ActionSpec
---@field start? fun(ctx: bt.Ctx, params: bt.Params)
---@field run fun(ctx: bt.Ctx, params: bt.Params): bt.Status
---@field cancel? fun(ctx: bt.Ctx, params: bt.Params)
---@field on? table<string, fun(ctx: bt.Ctx, params: bt.Params, data: bt.Data|nil): bt.Status?>
---@field params? table<integer|string, string>

---What a signal carries: nil, a boolean, a number, a string, or a table of
---those with string or integer keys (at most 16 tables deep, 64 KiB once
---encoded). Each receiver reads its own copy.
---@alias bt.Data boolean|number|string|table

---The long form of a condition.
---@class bt.ConditionSpec
---@field test fun(ctx: bt.Ctx, params: bt.Params): boolean
---@field params? table<integer|string, string>

---Registers an action under `name`. Only while scripts load (top level).
---@param name string
---@param action (fun(ctx: bt.Ctx, params: bt.Params): bt.Status)|bt.ActionSpec
function bt.action(name, action) end

---Registers a condition under `name`; it must return true or false.
---Only while scripts load (top level).
---@param name string
---@param test (fun(ctx: bt.Ctx, params: bt.Params): boolean)|bt.ConditionSpec
function bt.condition(name, test) end

---Registers a scorer under `name`: a child of a `<choice order="score">`
---whose parameter choice.score names it gets the number it returns (the
---child's parameters; above 0 to be tried, highest first). Only while
---scripts load (top level).
---@param name string
---@param score fun(ctx: bt.Ctx, params: bt.Params): number
function bt.scorer(name, score) end

---Registers an enter or exit hook under `name`: a rule whose enter= or exit=
---attribute names it calls fn when it starts (how = "enter", after its
---conditions passed) and when it is left (how = "success", "failure",
---"abort", "timeout", "preempt", "jump", "cancel", "reset" or "remove").
---params are the hooked rule's; ctx.rule is its label. A hook may not jump.
---Only while scripts load (top level). Names starting with "bt." are the
---built-ins': bt.log writes the rule's log.enter / log.exit ({how} in it
---replaced) with no script.
---@param name string
---@param fn fun(ctx: bt.Ctx, params: bt.Params, how: "enter"|"success"|"failure"|"abort"|"timeout"|"preempt"|"jump"|"cancel"|"reset"|"remove")
function bt.hook(name, fn) end

---Sends a signal, with data, from the running agent to every agent, itself
---included. Data that cannot be sent is an error at this line.
---@param name string
---@param data? bt.Data
function bt.broadcast(name, data) end

---Like math.random (which is the same function): called for an agent, from
---the agent's own generator; otherwise (the world's init and tick) from the
---world's. Both are seeded from the run's seed and saved with the run.
---No argument: a number in [0, 1); m: an integer in [1, m]; m, n: an
---integer in [m, n].
---@param m? integer
---@param n? integer
---@return number
function bt.random(m, n) end

---The agent as its actions and conditions see it. Valid during a call for
---this agent.
---@class bt.Ctx
---@field id string the agent's id
---@field tree string the tree's name
---@field rule string the label of the rule whose action, condition or scorer runs
---@field time number the agent's time, in seconds
---@field dt number this step's dt, in seconds
---@field step integer the step number (1 in the first step)
---@field firstRun boolean true on the first call since the cursor arrived at the rule
---@field state table the current rule's table: empty each time the cursor arrives at it
---@field memory table the agent's table for its whole life
---@field agent bt.AgentData the game's data for this agent (the world script fills it)
local Ctx = {}

---Makes the rule with this full id the cursor (applied when the call returns).
---@param id string
function Ctx:jump(id) end

---Delivers a signal, with data, to this agent now.
---@param name string
---@param data? bt.Data
function Ctx:signal(name, data) end

---Sends a signal, with data, to another agent (or "self", or "all"). Data
---that cannot be sent is an error at this line.
---@param agentId string
---@param name string
---@param data? bt.Data
function Ctx:send(agentId, name, data) end

---The agent's stimulus of a signal: the data of the last such signal it
---received (true when it carried none; a table is a copy of its own) and
---its age in seconds; nil when it holds none (never received, forgotten,
---or expired).
---@param name string
---@return bt.Data? data
---@return number? age
function Ctx:stimulus(name) end

---Drops the agent's stimulus of a signal; true when it held one.
---@param name string
---@return boolean
function Ctx:forget(name) end

---Graft the game's tree (a [[trees]] name) into the agent's slot: the slot
---runs it from the next time it is entered. A tree that declares something
---the agent's tree does not is an error.
---@param slot string
---@param tree string
function Ctx:graft(slot, tree) end

---Give the slot back its default tree (or none) from its next entry.
---@param slot string
function Ctx:ungraft(slot) end

---A declared boolean variable's value (ctx:get reads any type).
---@param name string
---@return boolean
function Ctx:var(name) end

---Sets a declared boolean variable (ctx:set writes any type).
---@param name string
---@param value boolean
function Ctx:setVar(name, value) end

---@class BtVector
---@field x number
---@field y number
---@field z number

---A declared variable's value, of its type: a boolean, a number, a string,
---or a vector as a new table {x=, y=, z=}.
---@param name string
---@return boolean|number|string|BtVector
function Ctx:get(name) end

---Sets a declared variable to a value of its type (a vector as {x=, y=, z=});
---another type, a number that is not finite or an undeclared name is the
---step's error: nothing is converted.
---@param name string
---@param value boolean|number|string|BtVector
function Ctx:set(name, value) end

---Sets a declared timestamp to now.
---@param name string
function Ctx:stamp(name) end

---Unsets a declared timestamp.
---@param name string
function Ctx:clearStamp(name) end

---Seconds since a declared timestamp was set, or nil when it is unset.
---@param name string
---@return number?
function Ctx:since(name) end

---The agent's place (1, 2, ...) among the holders of a declared gate, in
---the order they took it (as of the last round's end), or nil when it does
---not hold the gate: for giving agents that took a gate together roles.
---@param name string
---@return integer?
function Ctx:gateSlot(name) end

---Writes to the agent's log with its id, time and rule label.
---@param ... any
function Ctx:log(...) end

---The game's data for an agent (ctx.agent): a table its world script
---fills. A game describes its fields in a *.d.lua of its own.
---@class bt.AgentData
---@field [string] any

---A rule's parameters. `params["name"]` is the raw string, or nil.
---@class bt.Params
---@field [string] string?
local Params = {}

---The parameter as a number; default when absent; an error when it does
---not parse.
---@param name string
---@param default? number
---@return number
function Params:number(name, default) end

---The parameter as a boolean ("true" or "false"); default when absent.
---@param name string
---@param default? boolean
---@return boolean
function Params:bool(name, default) end

---The parameter's string; default when absent.
---@param name string
---@param default? string
---@return string
function Params:string(name, default) end

---The `game` table the world's init and tick get.
---@class bt.Game
---@field step integer the step being started
---@field time number its time, step x dt
---@field dt number
---@field seed integer
---@field ids string[] agent ids, in config order
---@field agents table<string, bt.AgentData> each agent's ctx.agent
---@field trees table<string, string> each agent's tree name
---@field signal fun(to: string, name: string, data?: bt.Data) sends a signal, with data, now (to: an id or "all")
---@field log fun(...) writes a line to the run's output

---The world script's module: every hook is optional.
---@class bt.World
---@field init? fun(game: bt.Game)
---@field spawn? fun(ctx: bt.Ctx)
---@field tick? fun(game: bt.Game)
---@field save? fun(): any
---@field load? fun(saved: any)

---@type btmodule
_G.bt = bt

return bt
