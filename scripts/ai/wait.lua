-- wait: stand still for a random time; succeeds when it is over.
-- Parameters: chance (default 1; the tree gives 1), wait.min and wait.max
-- (seconds, default 1 and 3).
local bt = require("bt")
local chance = require("chance")

bt.action("wait", {
  start = function(ctx, params)
    if not chance.roll(ctx, params) then
      return -- no untilTime: run fails
    end
    local lo = params:number("wait.min", 1)
    local hi = params:number("wait.max", 3)
    ctx.state.untilTime = ctx.time + lo + (hi - lo) * bt.random()
    ctx.agent.speed = 0
  end,
  run = function(ctx, params)
    local untilTime = ctx.state.untilTime
    if untilTime == nil then
      return bt.FAILURE
    end
    if ctx.time >= untilTime then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
