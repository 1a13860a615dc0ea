-- Actions of the courier tree (courier.xml, leg.xml).
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")


-- The spot a leg walks to is named by the leg's subtree id: the rule
-- courier.rounds.pickup.go walks to the pickup spot, whose position is in
-- ctx.agent.pickupX/pickupY. Labels are few, and string.match and ".."
-- cost an allocation each, so each label is turned into its field names
-- once.
local spots = {}
local function spotOf(rule)
  local spot = spots[rule]
  if spot == nil then
    local name = rule:match("%.(%a+)%.go$")
    spot = { name = name, x = name .. "X", y = name .. "Y" }
    spots[rule] = spot
  end
  return spot
end

-- tally adds a walked distance to the courier's odometer in ctx.memory,
-- which lives as long as the agent; past 40 m it gets tired (sets Tired,
-- which the rounds' rest checks). It runs once per walk, not every step.
local function tally(ctx, distance)
  local m = ctx.memory
  local walked = (m.walked or 0) + distance
  if walked > 40 then
    walked = 0
    ctx:setVar("Tired", true)
  end
  m.walked = walked
end

-- playerClose: the player is within playerClose.range (default 4) of the
-- courier. The tree watches it at every step while the rounds run.
bt.condition("playerClose", function(ctx, params)
  local a, r = ctx.agent, params:number("playerClose.range", 4)
  local player = bt.shared.player
  local dx, dy = player.x - a.x, player.y - a.y
  return dx * dx + dy * dy < r * r
end)

-- walkTo: walk to this leg's spot. Gets tired after a while. The tree
-- interrupts it when the player comes close (its cancel keeps the tally).
bt.action("walkTo", {
  start = function(ctx, params)
    local a, s, spot = ctx.agent, ctx.state, spotOf(ctx.rule)
    local speed = params:number("walkTo.speed", 2.5)
    steer.plan(s, a, ctx.time, a[spot.x], a[spot.y], speed)
    s.from, s.speed = ctx.time, speed
  end,
  run = function(ctx, params)
    local a, s = ctx.agent, ctx.state
    if steer.follow(s, a, ctx.time, ctx.dt) then
      tally(ctx, s.speed * (s.arrive - s.from))
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    local s = ctx.state
    tally(ctx, s.speed * (ctx.time - s.from))
    ctx:log("interrupted on the way to " .. spotOf(ctx.rule).name)
  end,
})

-- dodge: get away from the player for a few seconds (couriers and
-- medics).
bt.action("dodge", {
  start = function(ctx, params)
    local s = ctx.state
    s.untilTime = ctx.time + params:number("dodge.seconds", 2)
    s.speed = params:number("dodge.speed", 3.5) -- read once, not every step
    ctx:log("dodging the player")
    -- With dodge.callMedics, one the player caught up with calls two
    -- medics (medic.xml) to where it is: the two from its own number on
    -- among the game's medics (bt.shared.medics of them), so that calls
    -- are spread out.
    local medics = bt.shared.medics
    if params:bool("dodge.callMedics", false) and medics > 0 then
      local a, n = ctx.agent, arena.number(ctx.id)
      local call = { who = ctx.id, x = a.x, y = a.y }
      for k = 0, math.min(2, medics) - 1 do
        ctx:send("medic-" .. (n + k - 1) % medics + 1, "OnHurt", call)
      end
    end
  end,
  run = function(ctx, params)
    local s = ctx.state
    local player = bt.shared.player
    steer.moveAway(ctx.agent, player.x, player.y, s.speed, ctx.dt)
    return ctx.time >= s.untilTime and bt.SUCCESS or bt.RUNNING
  end,
})

-- walkToCrossroads: walk to where couriers swap parcels (arena.crossroads).
bt.action("walkToCrossroads", {
  start = function(ctx, params)
    local a, s, c = ctx.agent, ctx.state, arena.crossroads
    steer.plan(s, a, ctx.time, c.x, c.y, params:number("walkToCrossroads.speed", 2.5))
  end,
  run = function(ctx, params)
    return steer.follow(ctx.state, ctx.agent, ctx.time, ctx.dt) and bt.SUCCESS or bt.RUNNING
  end,
})

-- swapParcels: the two couriers holding the rendezvous gate swap parcels
-- for a second: the first to have taken the gate hands its parcel over,
-- the second receives it (ctx:gateSlot). ctx.memory counts both.
bt.action("swapParcels", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("swapParcels.seconds", 1)
    local m = ctx.memory
    if ctx:gateSlot("rendezvous") == 1 then
      m.handed = (m.handed or 0) + 1
      ctx:log("hands a parcel over")
    else
      m.received = (m.received or 0) + 1
      ctx:log("receives a parcel")
    end
  end,
  run = function(ctx, params)
    return ctx.time >= ctx.state.untilTime and bt.SUCCESS or bt.RUNNING
  end,
})
