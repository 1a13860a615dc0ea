-- backOff: the player is nearby: walk away from it for a while; succeeds
-- when the time is up. Parameters: backOff.seconds (default 2),
-- backOff.speed (m/s, default 1.5).
local bt = require("bt")
local steer = require("steer")

bt.action("backOff", {
  start = function(ctx, params)
    local s = ctx.state
    s.untilTime = ctx.time + params:number("backOff.seconds", 2)
    s.speed = params:number("backOff.speed", 1.5) -- read once, not every step
  end,
  run = function(ctx, params)
    local a, s = ctx.agent, ctx.state
    local player = bt.shared.player
    steer.moveAway(a, player.x, player.y, s.speed, ctx.dt)
    if ctx.time >= s.untilTime then
      a.speed = 0
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
