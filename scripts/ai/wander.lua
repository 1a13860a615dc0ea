-- wander: walk to a random point near the agent; succeeds on arrival.
-- Parameters: chance (probability to wander at all, default 1),
-- wander.radius (m, default 8).
local bt = require("bt")
local arena = require("arena")

bt.action("wander", {
  start = function(ctx, params)
    local s = ctx.state
    if not arena.roll(params) then
      s.skip = true
      return
    end
    local a = ctx.agent
    local angle = bt.random() * 2 * math.pi
    local dist = params:number("wander.radius", 8) * (0.3 + 0.7 * bt.random())
    s.tx, s.ty = arena.clamp(a.x + math.cos(angle) * dist, a.y + math.sin(angle) * dist)
  end,
  run = function(ctx, params)
    local s = ctx.state
    if s.skip then
      return bt.FAILURE
    end
    if arena.moveTo(ctx.agent, s.tx, s.ty, ctx.agent.speed, ctx.dt) then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
