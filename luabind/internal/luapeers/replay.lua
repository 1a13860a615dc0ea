-- replay.lua: replays a call log of btrun (written by luapeers, main.go)
-- through the example game's scripts on any Lua 5.1: gopher-lua, C Lua 5.1,
-- LuaJIT. It stands in for btrun's binding with plain tables: ctx is a
-- table per agent holding its fields (its methods one __index away),
-- params a table per rule, bt a table with the module's functions. The
-- log is read and the scripts loaded before the timed loops.
--
--   lua5.1 replay.lua LOG REPS
--   glua replay.lua LOG REPS proc
--   lua5.1 replay.lua LOG REPS - calls|base
--
-- It prints one line: calls, errors (calls that raised an error: the
-- replay's values differ from btrun's where plugins wrote into agents, and
-- bt.random is its own generator), CPU seconds of the calls alone (the
-- replay loop less the same loop without the calls), those of that
-- baseline, and a checksum of the results (equal on every engine). With
-- "calls" or "base" as the fourth argument it runs that loop alone, untimed:
-- luapeers -callgrind counts the instructions of a run of each and takes
-- the difference.
local logfile, reps, only = arg[1], tonumber(arg[2] or "1"), arg[4]

local function unesc(s)
  if s == "~" then return "" end
  return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end
local function value(ty, v)
  if ty == "n" then return tonumber(v) end
  if ty == "b" then return v == "true" end
  return unesc(v)
end

-- Each call is five numbers in five arrays (function, agent, params,
-- rule, flags), not a table: a Go engine's collector walks everything live
-- at every cycle, and a table (or a string) per call made the log most of
-- what it walked. They are not packed into one number either: unpacking
-- takes %, which gopher-lua computes with math.Mod (a loop over the
-- exponents' difference), and that alone cost more than the calls it
-- timed.
local files, fnkeys, agents, params = {}, {}, {}, {}
local cfn, cagent, cparams, crule, cflags = {}, {}, {}, {}, {}
local carg, csteps, steps = {}, {}, {}
local rules, ruleIds = {}, {}
local ncalls = 0
for line in io.lines(logfile) do
  local w = {}
  for x in line:gmatch("%S+") do w[#w + 1] = x end
  local k = w[1]
  if k == "C" then
    ncalls = ncalls + 1
    local rule = unesc(w[5])
    local r = ruleIds[rule]
    if r == nil then
      rules[#rules + 1] = rule
      r = #rules
      ruleIds[rule] = r
    end
    cfn[ncalls], cagent[ncalls], cparams[ncalls], crule[ncalls] = tonumber(w[2]), tonumber(w[3]), tonumber(w[4]), r
    cflags[ncalls] = (w[6] == "1" and 2 or 0) + (w[7] == "1" and 1 or 0)
    if w[8] ~= "-" then carg[ncalls] = value(w[8], w[9]) end
  elseif k == "T" then
    local s = { time = tonumber(w[2]), dt = tonumber(w[3]), n = tonumber(w[4]), shared = {} }
    for i = 5, #w, 3 do s.shared[#s.shared + 1] = { unesc(w[i]), value(w[i + 1], w[i + 2]) } end
    steps[#steps + 1] = s
    csteps[ncalls + 1] = s -- the step begins before this call
  elseif k == "L" then
    files[#files + 1] = { path = unesc(w[2]), chunk = unesc(w[3]), module = unesc(w[4]) }
  elseif k == "F" then
    fnkeys[tonumber(w[2])] = unesc(w[3]) .. ":" .. w[4]
  elseif k == "A" then
    local a = { id = unesc(w[3]), tree = unesc(w[4]), data = {} }
    for i = 5, #w, 3 do a.data[unesc(w[i])] = value(w[i + 1], w[i + 2]) end
    agents[tonumber(w[2])] = a
  elseif k == "P" then
    local p = {}
    for i = 3, #w, 2 do p[unesc(w[i])] = unesc(w[i + 1]) end
    params[tonumber(w[2])] = p
  end
end

-- bt: what the scripts use of the module.
local shared = {}
local defs = {}
local bt = { SUCCESS = "success", FAILURE = "failure", RUNNING = "running", shared = shared }
local function def(name, d) defs[#defs + 1] = d end
bt.action, bt.condition, bt.scorer, bt.hook = def, def, def, def
-- bt.random draws from numbers made before the timed loops: btrun's is Go
-- code, and a generator in Lua (an LCG's float %, which gopher-lua computes
-- with math.Mod, a loop over the exponents' difference) cost the calls
-- hundreds of instructions each that btrun's scripts do not pay.
local randoms, nrandoms, drawn = {}, 4096, 0
do
  local seed = 12345
  for i = 1, nrandoms do
    seed = (seed * 1103515245 + 12345) % 2147483648
    randoms[i] = seed / 2147483648
  end
end
function bt.random(a, b)
  drawn = drawn + 1
  if drawn > nrandoms then drawn = 1 end
  local r = randoms[drawn]
  if a == nil then return r end
  if b == nil then return math.floor(r * a) + 1 end
  return a + math.floor(r * (b - a + 1))
end

-- require finds the scripts' modules among the logged files.
local loaded = { bt = bt }
local byModule = {}
for _, f in ipairs(files) do byModule[f.module] = f end
local function load(f)
  local h = assert(io.open(f.path, "rb"))
  local src = h:read("*a")
  h:close()
  return assert(loadstring(src, f.chunk))
end
function require(name)
  if loaded[name] == nil then
    local f = assert(byModule[name], "no module " .. name)
    loaded[name] = load(f)(name) or true
  end
  return loaded[name]
end
for _, f in ipairs(files) do
  if loaded[f.module] == nil then
    loaded[f.module] = load(f)(f.module) or true
  end
end

-- Every function the scripts registered, by where it is defined.
local byKey = {}
local function collect(v)
  if type(v) == "function" then
    local info = debug.getinfo(v, "S")
    byKey[info.source .. ":" .. info.linedefined] = v
  elseif type(v) == "table" then
    for _, x in pairs(v) do collect(x) end
  end
end
for _, d in ipairs(defs) do collect(d) end
local fns = {}
for id, key in pairs(fnkeys) do fns[id] = assert(byKey[key], "no function at " .. key) end

-- params: the rule's values and the three methods, as btrun gives them:
-- each table's own closures over its values parsed once, before the timed
-- loops (btrun parses them at bind time; parsing the string at each call
-- cost the replay's calls work btrun's do not do).
for _, p in pairs(params) do
  local strs, nums, bools = {}, {}, {}
  for k, v in pairs(p) do
    strs[k], nums[k], bools[k] = v, tonumber(v), v == "true"
  end
  p.number = function(_, name, default)
    if strs[name] == nil then return default end
    return nums[name]
  end
  p.bool = function(_, name, default)
    if strs[name] == nil then return default end
    return bools[name]
  end
  p.string = function(_, name, default)
    local v = strs[name]
    if v == nil then return default end
    return v
  end
end

-- ctx: a table per agent, its methods one __index away.
local noop = function() end
local nothing = function() return nil end
local cmethods = { __index = {
  log = noop, signal = noop, send = noop, setVar = noop, stamp = noop, clearStamp = noop,
  graft = noop, ungraft = noop, jump = noop,
  stimulus = nothing, since = nothing, gateSlot = nothing, forget = function() return false end,
  var = function() return false end,
} }
local ctxs = {}
for id, a in pairs(agents) do
  ctxs[id] = setmetatable({ agent = a.data, memory = {}, id = a.id, tree = a.tree, time = 0, dt = 0, state = {} }, cmethods)
end

local function setShared(path, v)
  local t = shared
  local head, rest = path:match("^([^.]+)%.(.+)$")
  while head do
    if t[head] == nil then t[head] = {} end
    t = t[head]
    path = rest
    head, rest = path:match("^([^.]+)%.(.+)$")
  end
  t[path] = v
end

-- The clock is the process's CPU time on every engine: os.clock in C Lua
-- and LuaJIT; gopher-lua's os.clock is wall time, so there the host's
-- cpuclock, or with "proc" as the third argument (glua) /proc/self/stat's
-- user and system ticks (1/100 s).
local function procclock()
  local h = assert(io.open("/proc/self/stat", "rb"))
  local line = h:read("*l")
  h:close()
  local f = {}
  for x in line:match("%) (.*)$"):gmatch("%S+") do f[#f + 1] = x end
  return (tonumber(f[12]) + tonumber(f[13])) / 100 -- utime, stime (fields 14, 15)
end
local clock = cpuclock or (arg[3] == "proc" and procclock) or os.clock

local pcall = pcall
local showErrors = tonumber(os.getenv("REPLAY_SHOW_ERRORS") or "0")
-- replay runs the log reps times: with calls, or (the baseline) doing
-- everything but the calls: the steps' values, ctx's fields, ctx.state
-- emptied where btrun's was. The figure printed is the difference:
-- the calls alone, whatever the harness's own loop costs on the engine.
-- Its counts are its own locals, returned: in gopher-lua an error caught by
-- pcall closes the open upvalues of the function's callers, so a counter
-- kept in the main chunk stopped counting at the first error.
local function replay(calls)
  local n, errors, sum = 0, 0, 0
  local time, dt, step = 0, 0, 0
  for _ = 1, reps do
    for i = 1, ncalls do
      local s = csteps[i]
      if s then
        time, dt, step = s.time, s.dt, s.n
        for _, kv in ipairs(s.shared) do setShared(kv[1], kv[2]) end
      end
      local ctx, flags = ctxs[cagent[i]], cflags[i]
      if flags == 1 or flags == 3 then
        -- btrun empties the agent's one state table where the replay made
        -- a new one: the calls' writes into a new table allocated (and
        -- made work for a Go engine's collector) where btrun's do not.
        local st = ctx.state
        for k in pairs(st) do st[k] = nil end
      end
      ctx.rule, ctx.firstRun, ctx.time, ctx.dt, ctx.step = rules[crule[i]], flags >= 2, time, dt, step
      if calls then
        local ok, r = pcall(fns[cfn[i]], ctx, params[cparams[i]], carg[i])
        n = n + 1
        if not ok then
          errors = errors + 1
          if errors <= showErrors then
            io.stderr:write(tostring(r), "\n")
          end
        elseif r == true or r == "success" then
          sum = sum + 1
        end
      end
    end
  end
  return n, errors, sum
end
-- Each timed loop starts after a full collection: a Go engine's collector
-- sweeps and marks lazily, during the allocations that follow, so without
-- it the first loop paid for the garbage of reading the log and loading the
-- scripts (about as much again as the calls themselves, in callgrind's
-- counts on the patched glua) and the second loop for the first's.
if only == "calls" or only == "base" then
  collectgarbage("collect")
  local n, errors, sum = replay(only == "calls")
  print(string.format("%s calls %d errors %d checksum %d", only, n, errors, sum))
  return
end
collectgarbage("collect")
local t0 = clock()
local n, errors, sum = replay(true)
local t1 = clock()
collectgarbage("collect")
local t2 = clock()
replay(false)
local t3 = clock()
print(string.format("calls %d errors %d seconds %.6f baseline %.6f checksum %d",
  n, errors, math.max((t1 - t0) - (t3 - t2), 0), t3 - t2, sum))
