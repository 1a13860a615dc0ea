-- wait: stand still for a random time; succeeds when it is over.
-- Parameters: chance (default 1), wait.min and wait.max (seconds, default
-- 1 and 3).
local bt = require("bt")
local arena = require("arena")

bt.action("wait", {
  start = function(ctx, params)
    local s = ctx.state
    if not arena.roll(params) then
      s.skip = true
      return
    end
    local lo = params:number("wait.min", 1)
    local hi = params:number("wait.max", 3)
    s.untilTime = ctx.time + lo + (hi - lo) * bt.random()
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
