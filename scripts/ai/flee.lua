-- flee: the player is too close: run away from it, with a little jump for
-- show at the start (ctx.agent.z). Fails at once when the player is nearby
-- but not that close, so that backOff walks away instead; succeeds at the
-- safe distance. (Drag[en]gine's example flees from a player that is close
-- and moving fast; world.lua gives agents the player's position, not its
-- speed, so closeness decides here.)
-- Parameters: flee.range (m, default 2.5), flee.speed (m/s, default 4),
-- flee.safeDistance (m, default playerNearby.range or 5: in the example
-- tree the rule's playerNearby condition ends the flight there anyway).
local bt = require("bt")
local steer = require("steer")

local HOP_SECONDS, HOP_HEIGHT = 0.4, 0.5

bt.action("flee", {
  start = function(ctx, params)
    -- Parameters are read once per flight, not every step.
    local s = ctx.state
    s.since = ctx.time
    s.range = params:number("flee.range", 2.5)
    s.safe = params:number("flee.safeDistance", params:number("playerNearby.range", 5))
    s.speed = params:number("flee.speed", 4)
  end,
  run = function(ctx, params)
    local a, s = ctx.agent, ctx.state
    local p = bt.shared.player
    local d = steer.distance(a.x, a.y, p.x, p.y)
    if ctx.firstRun and d >= s.range then
      return bt.FAILURE
    end
    if d >= s.safe then
      a.z, a.speed = 0, 0
      return bt.SUCCESS
    end
    local t = ctx.time - s.since
    a.z = t < HOP_SECONDS and HOP_HEIGHT * math.sin(math.pi * t / HOP_SECONDS) or 0
    steer.moveAway(a, p.x, p.y, s.speed, ctx.dt)
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx.agent.z = 0 -- land if interrupted mid-hop
  end,
})
