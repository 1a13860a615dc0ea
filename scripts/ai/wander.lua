-- Actions and conditions of the seed example tree
-- (dragengine-exampleapp.xml): wander, turning, wait, flee, backOff,
-- playerNearby and playerNotNearby. They follow world.lua's contract for
-- ctx.agent: x, y, heading (radians), speed (current, m/s). The player is
-- bt.shared.player, which the world publishes each tick. See docs/lua.md, "The example game".
--
-- wander: walk to a random point near the agent; succeeds on arrival.
-- Parameters: chance (the probability to wander at all when the rule is
-- reached, default 1; the tree gives 0.25), wander.radius (m, default 8),
-- wander.speed (m/s, default 1.5).
local bt = require("bt")
local chance = require("chance")
local steer = require("steer")

local cos, sin, min, max, pi = math.cos, math.sin, math.min, math.max, math.pi

-- The chance is rolled and the walk planned when the rule starts, so that
-- a step of the walk only follows the plan (steer.follow).
bt.action("wander", {
  start = function(ctx, params)
    if not chance.roll(ctx, params) then
      return
    end
    local s, a = ctx.state, ctx.agent
    local angle = bt.random() * 2 * pi
    local dist = params:number("wander.radius", 8) * (0.3 + 0.7 * bt.random())
    steer.plan(s, a, ctx.time,
      min(max(a.x + cos(angle) * dist, 0), steer.WIDTH),
      min(max(a.y + sin(angle) * dist, 0), steer.HEIGHT),
      params:number("wander.speed", 1.5))
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    if steer.follow(s, ctx.agent, ctx.time, ctx.dt) then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
