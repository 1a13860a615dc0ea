-- backOff: the player is close but slow: walk away from it for a while;
-- succeeds when the time is up. Parameters: backOff.seconds (default 2).
local bt = require("bt")
local arena = require("arena")

bt.action("backOff", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("backOff.seconds", 2)
  end,
  run = function(ctx, params)
    local a, p = ctx.agent, arena.player
    arena.moveAway(a, p.x, p.y, a.speed, ctx.dt)
    if ctx.time >= ctx.state.untilTime then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
