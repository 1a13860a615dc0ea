-- Actions of the grunt tree (grunt.xml). Chasing is the nav plugin's
-- nav.moveTo; these are the rest.
local bt = require("bt")
local steer = require("steer")

-- patrol: walk to a random spot near the grunt's post.
bt.action("patrol", {
  start = function(ctx, params)
    local a, r, s = ctx.agent, params:number("patrol.radius", 4), ctx.state
    s.x = a.postX + (bt.random() * 2 - 1) * r
    s.y = a.postY + (bt.random() * 2 - 1) * r
    s.speed = params:number("patrol.speed", 1.5)
  end,
  run = function(ctx, params)
    local s = ctx.state
    local arrived = steer.moveTowards(ctx.agent, s.x, s.y, s.speed, ctx.dt)
    return arrived and bt.SUCCESS or bt.RUNNING
  end,
})

-- shoot: fire a burst while the player is in range; fails when it is not.
bt.action("shoot", {
  start = function(ctx, params)
    ctx.state.shots = 0
    ctx.state.next = ctx.time
  end,
  run = function(ctx, params)
    local a = ctx.agent
    if a.distanceToPlayer > params:number("shoot.range", 6) then
      return bt.FAILURE
    end
    a.heading = math.atan2(a.playerY - a.y, a.playerX - a.x)
    if ctx.time >= ctx.state.next then
      ctx.state.shots = ctx.state.shots + 1
      ctx.state.next = ctx.time + params:number("shoot.interval", 0.5)
      ctx.memory.shotsFired = (ctx.memory.shotsFired or 0) + 1
      if ctx.state.shots >= params:number("shoot.burst", 3) then
        ctx:log("fired a burst; " .. ctx.memory.shotsFired .. " shots so far")
        return bt.SUCCESS
      end
    end
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx:log("holds fire after " .. ctx.state.shots .. " shots")
  end,
})

-- goToLastSeen: walk to where the player was last seen, then look around.
-- Runs until its conditions (the give-up timer) stop it.
bt.action("goToLastSeen", function(ctx, params)
  local a = ctx.agent
  if steer.moveTowards(a, a.lastSeenX, a.lastSeenY, params:number("goToLastSeen.speed", 2.5), ctx.dt) then
    a.heading = a.heading + 1.5 * ctx.dt
  end
  return bt.RUNNING
end)
