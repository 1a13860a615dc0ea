-- backOff: the player is nearby: walk away from it for a while; succeeds
-- when the time is up. Parameters: backOff.seconds (default 2),
-- backOff.speed (m/s, default 1.5).
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")

bt.action("backOff", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("backOff.seconds", 2)
  end,
  run = function(ctx, params)
    local a = ctx.agent
    steer.moveAway(a, arena.player.x, arena.player.y, params:number("backOff.speed", 1.5), ctx.dt)
    if ctx.time >= ctx.state.untilTime then
      a.speed = 0
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
