-- turning: turn on the spot to a random new heading; succeeds when facing it.
-- Parameters: chance (default 1), turning.maxAngle (degrees either way,
-- default 180), turning.rate (degrees per second, default 120).
local bt = require("bt")
local arena = require("arena")

bt.action("turning", {
  start = function(ctx, params)
    local s = ctx.state
    if not arena.roll(params) then
      s.skip = true
      return
    end
    local maxAngle = math.rad(params:number("turning.maxAngle", 180))
    s.target = arena.wrapAngle(ctx.agent.heading + (bt.random() * 2 - 1) * maxAngle)
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    local a = ctx.agent
    local diff = arena.wrapAngle(s.target - a.heading)
    local stepAngle = math.rad(params:number("turning.rate", 120)) * ctx.dt
    if math.abs(diff) <= stepAngle then
      a.heading = s.target
      return bt.SUCCESS
    end
    a.heading = arena.wrapAngle(a.heading + (diff > 0 and stepAngle or -stepAngle))
    return bt.RUNNING
  end,
})
