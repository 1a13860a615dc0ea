-- turning: turn on the spot to a random new heading; succeeds when facing
-- it. Like wander, it rolls its chance on the first run. Parameters: chance (default 1; the tree gives 0.35),
-- turning.maxAngle (degrees either way, default 180), turning.rate
-- (degrees per second, default 120).
local bt = require("bt")

local pi = math.pi

local function wrap(angle)
  while angle > pi do angle = angle - 2 * pi end
  while angle <= -pi do angle = angle + 2 * pi end
  return angle
end

bt.action("turning", function(ctx, params)
  local a = ctx.agent
  if ctx.firstRun then
    if bt.random() >= params:number("chance", 1) then
      return bt.FAILURE
    end
    local maxAngle = math.rad(params:number("turning.maxAngle", 180))
    local s = ctx.state
    s.target = wrap(a.heading + (bt.random() * 2 - 1) * maxAngle)
    s.rate = math.rad(params:number("turning.rate", 120)) -- read once per turn
    a.speed = 0
  end
  local s = ctx.state
  local target = s.target
  local diff = wrap(target - a.heading)
  local turn = s.rate * ctx.dt
  if math.abs(diff) <= turn then
    a.heading = target
    return bt.SUCCESS
  end
  a.heading = wrap(a.heading + (diff > 0 and turn or -turn))
  return bt.RUNNING
end)
