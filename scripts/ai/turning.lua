-- turning: turn on the spot to a random new heading; succeeds when facing
-- it. Like wander, it rolls its chance when the rule starts. Parameters:
-- chance (default 1; the tree gives 0.35), turning.maxAngle (degrees
-- either way, default 180), turning.rate (degrees per second, default 120).
local bt = require("bt")
local chance = require("chance")

local pi, rad, abs = math.pi, math.rad, math.abs

local function wrap(angle)
  while angle > pi do angle = angle - 2 * pi end
  while angle <= -pi do angle = angle + 2 * pi end
  return angle
end

-- The turn is planned when it starts: which way, how fast, and when it is
-- done; a step only turns by rate * dt.
bt.action("turning", {
  start = function(ctx, params)
    if not chance.roll(ctx, params) then
      return
    end
    local s, a = ctx.state, ctx.agent
    local maxAngle = rad(params:number("turning.maxAngle", 180))
    local target = wrap(a.heading + (bt.random() * 2 - 1) * maxAngle)
    local diff = wrap(target - a.heading)
    local rate = rad(params:number("turning.rate", 120))
    s.target, s.done = target, ctx.time + abs(diff) / rate
    s.rate = diff < 0 and -rate or rate
    a.speed = 0
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    local a, dt = ctx.agent, ctx.dt
    if ctx.time + dt >= s.done then
      a.heading = s.target
      return bt.SUCCESS
    end
    a.heading = wrap(a.heading + s.rate * dt)
    return bt.RUNNING
  end,
})
