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

bt.action("wander", {
  start = function(ctx, params)
    local s = ctx.state
    if bt.random() >= params:number("chance", 1) then
      s.skip = true
      return
    end
    local a = ctx.agent
    local angle = bt.random() * 2 * math.pi
    local dist = params:number("wander.radius", 8) * (0.3 + 0.7 * bt.random())
    local target = { x = a.x + math.cos(angle) * dist, y = a.y + math.sin(angle) * dist }
    steer.confine(target)
    s.tx, s.ty = target.x, target.y
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    if steer.moveTowards(ctx.agent, s.tx, s.ty, params:number("wander.speed", 1.5), ctx.dt) then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx.agent.speed = 0
  end,
})
