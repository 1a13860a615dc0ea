-- Actions and conditions of the seed example tree
-- (dragengine-exampleapp.xml): wander, turning, wait, flee, backOff,
-- playerNearby and playerNotNearby. They follow world.lua's contract for
-- ctx.agent: x, y, heading (radians), speed (current, m/s), and the
-- player's playerX, playerY and distanceToPlayer, which the world refreshes
-- every tick. See docs/lua.md, "The example game".
--
-- wander: walk to a random point near the agent; succeeds on arrival.
-- Parameters: chance (the probability to wander at all when the rule is
-- reached, default 1; the tree gives 0.25), wander.radius (m, default 8),
-- wander.speed (m/s, default 1.5).
local bt = require("bt")
local steer = require("steer")

-- The chance is rolled on the first run rather than in a start function:
-- a rule that does not go ahead then returns at once without touching
-- ctx.state, whose table is only made when a script first uses it.
bt.action("wander", function(ctx, params)
  local a, s = ctx.agent, nil
  if ctx.firstRun then
    if bt.random() >= params:number("chance", 1) then
      return bt.FAILURE
    end
    local angle = bt.random() * 2 * math.pi
    local dist = params:number("wander.radius", 8) * (0.3 + 0.7 * bt.random())
    s = ctx.state
    s.tx = math.min(math.max(a.x + math.cos(angle) * dist, 0), steer.WIDTH)
    s.ty = math.min(math.max(a.y + math.sin(angle) * dist, 0), steer.HEIGHT)
    s.speed = params:number("wander.speed", 1.5) -- read once per walk, not every step
  else
    s = ctx.state
  end
  if steer.moveTowards(a, s.tx, s.ty, s.speed, ctx.dt) then
    return bt.SUCCESS
  end
  return bt.RUNNING
end)
