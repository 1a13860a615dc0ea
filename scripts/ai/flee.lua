-- flee: the player is close and moving fast: run away from it, with a
-- little jump for show at the start. Fails at once when the player is slow
-- (then backOff walks away instead); succeeds once the agent is safe.
-- Parameters: flee.playerSpeed (m/s the player must reach, default 2),
-- flee.speedFactor (times the agent's speed, default 2), flee.safeDistance
-- (m, default playerNearby.range or 5: in the example tree the flee rule's
-- playerNearby condition ends the flight at that distance anyway).
local bt = require("bt")
local arena = require("arena")

local HOP_SECONDS, HOP_HEIGHT = 0.4, 0.5

bt.action("flee", {
  start = function(ctx, params)
    ctx.state.since = ctx.time
  end,
  run = function(ctx, params)
    local a, p = ctx.agent, arena.player
    if ctx.firstRun and (p.speed or 0) < params:number("flee.playerSpeed", 2) then
      return bt.FAILURE
    end
    if arena.distanceToPlayer(a) >= params:number("flee.safeDistance", params:number("playerNearby.range", 5)) then
      a.z = 0
      return bt.SUCCESS
    end
    local t = ctx.time - ctx.state.since
    a.z = t < HOP_SECONDS and HOP_HEIGHT * math.sin(math.pi * t / HOP_SECONDS) or 0
    arena.moveAway(a, p.x, p.y, a.speed * params:number("flee.speedFactor", 2), ctx.dt)
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx.agent.z = 0 -- land if interrupted mid-hop
  end,
})
