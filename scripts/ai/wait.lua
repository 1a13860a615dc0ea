-- wait: stand still for a random time; succeeds when it is over.
-- Parameters: chance (default 1; the tree gives 1), wait.min and wait.max
-- (seconds, default 1 and 3).
local bt = require("bt")

bt.action("wait", {
  start = function(ctx, params)
    local s = ctx.state
    if bt.random() >= params:number("chance", 1) then
      s.skip = true
      return
    end
    local lo = params:number("wait.min", 1)
    local hi = params:number("wait.max", 3)
    s.untilTime = ctx.time + lo + (hi - lo) * bt.random()
    ctx.agent.speed = 0
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    if ctx.time >= s.untilTime then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
