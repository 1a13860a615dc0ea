-- turning: turn on the spot to a random new heading; succeeds when facing
-- it. Parameters: chance (default 1; the tree gives 0.35),
-- turning.maxAngle (degrees either way, default 180), turning.rate
-- (degrees per second, default 120).
local bt = require("bt")

local pi = math.pi

local function wrap(angle)
  while angle > pi do angle = angle - 2 * pi end
  while angle <= -pi do angle = angle + 2 * pi end
  return angle
end

bt.action("turning", {
  start = function(ctx, params)
    local s = ctx.state
    if bt.random() >= params:number("chance", 1) then
      s.skip = true
      return
    end
    local maxAngle = math.rad(params:number("turning.maxAngle", 180))
    s.target = wrap(ctx.agent.heading + (bt.random() * 2 - 1) * maxAngle)
    ctx.agent.speed = 0
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    local a = ctx.agent
    local diff = wrap(s.target - a.heading)
    local turn = math.rad(params:number("turning.rate", 120)) * ctx.dt
    if math.abs(diff) <= turn then
      a.heading = s.target
      return bt.SUCCESS
    end
    a.heading = wrap(a.heading + (diff > 0 and turn or -turn))
    return bt.RUNNING
  end,
})
