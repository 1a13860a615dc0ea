-- Actions and the scorer of the grunt tree (grunt.xml). Chasing is the nav
-- plugin's nav.moveTo; these are the rest. ctx.agent.playerX/playerY is where the
-- grunt last saw the player (look keeps it up to date while it sees it);
-- bt.shared.player is where the player is now (the world publishes it).
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")

local atan2 = math.atan2
local SIGHT2 = arena.SIGHT * arena.SIGHT

-- look: the grunt's eyes, a condition its tree checks at every step (the
-- first condition of the attack branch, which is watched both ways), and
-- always true. A grunt that starts seeing the player signals
-- itself OnEnemySeen, one that stops OnLostSightOfTarget (the CryEngine
-- way: perception sends signals, the tree's variables and timestamps
-- remember them), and while it sees the player it keeps where (the spot
-- nav.moveTo chases). Perception is time-sliced, as games do with their
-- costlier senses: each grunt looks every other step, odd-numbered grunts
-- on odd steps (a grunt's post has the parity of its number). Whether it
-- sees the player is ctx.agent.sees.
bt.condition("look", function(ctx, params)
  local a = ctx.agent
  if ctx.step % 2 ~= a.post % 2 then
    return true
  end
  local player = bt.shared.player
  local dx, dy = player.x - a.x, player.y - a.y
  if dx * dx + dy * dy <= SIGHT2 then
    a.playerX, a.playerY = player.x, player.y
    if not a.sees then
      a.sees = true
      ctx:signal("OnEnemySeen")
    end
  elseif a.sees then
    a.sees = false
    ctx:signal("OnLostSightOfTarget")
  end
  return true
end)

-- patrol: walk to a random spot near the grunt's post. When it gets there
-- it notes the time, which calms it down (restless).
bt.action("patrol", {
  start = function(ctx, params)
    local a, r = ctx.agent, params:number("patrol.radius", 4)
    local post = arena.posts[a.post]
    steer.plan(ctx.state, a, ctx.time,
      post[1] + (bt.random() * 2 - 1) * r,
      post[2] + (bt.random() * 2 - 1) * r,
      params:number("patrol.speed", 1.5))
  end,
  run = function(ctx, params)
    if steer.follow(ctx.state, ctx.agent, ctx.time, ctx.dt) then
      ctx.memory.patrolled = ctx.time
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})

-- restless: the idle choice's score for patrolling (looking about scores
-- 1): it grows with the seconds since the grunt last finished a patrol,
-- reaching 1 after restless.seconds (default 3).
bt.scorer("restless", function(ctx, params)
  return (ctx.time - (ctx.memory.patrolled or 0)) / params:number("restless.seconds", 3)
end)

-- shoot: fire a burst while the player is in range; fails when it is not.
-- The tree gives it a cooldown between bursts and aims meanwhile. Each shot
-- takes a round from the grunt's magazine, the tree's number variable Ammo
-- (grunt.xml: the tree shoots only while Ammo > 0 and reloads at 0); a
-- burst ends early when the magazine runs dry.
bt.action("shoot", {
  start = function(ctx, params)
    local s = ctx.state
    s.shots = 0
    s.next = ctx.time
    s.range = params:number("shoot.range", 6) -- read once per burst, not every step
  end,
  run = function(ctx, params)
    local a = ctx.agent
    local player = bt.shared.player
    local dx, dy = player.x - a.x, player.y - a.y
    local range = ctx.state.range
    if dx * dx + dy * dy > range * range then
      return bt.FAILURE
    end
    a.heading = atan2(dy, dx)
    if ctx.time >= ctx.state.next then
      ctx.state.shots = ctx.state.shots + 1
      ctx.state.next = ctx.time + params:number("shoot.interval", 0.5)
      local ammo = ctx:get("Ammo") - 1
      ctx:set("Ammo", ammo)
      if ctx.state.shots >= params:number("shoot.burst", 3) or ammo == 0 then
        ctx:log("fired a burst; " .. ammo .. (ammo == 1 and " round" or " rounds") .. " left")
        return bt.SUCCESS
      end
    end
    return bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx:log("holds fire after " .. ctx.state.shots .. " shots")
  end,
})

-- track: keep facing the player while the chase moves the grunt (the other
-- lane of the attack's parallel). It never finishes on its own: the
-- parallel cancels it when the chase is done.
bt.action("track", function(ctx, params)
  local a = ctx.agent
  local player = bt.shared.player
  a.heading = atan2(player.y - a.y, player.x - a.x)
  return bt.RUNNING
end)

-- aim: face the player for aim.seconds (default 0.5), then succeed.
bt.action("aim", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("aim.seconds", 0.5)
  end,
  run = function(ctx, params)
    local a = ctx.agent
    local player = bt.shared.player
    a.heading = atan2(player.y - a.y, player.x - a.x)
    return ctx.time >= ctx.state.untilTime and bt.SUCCESS or bt.RUNNING
  end,
})

-- goToLastSeen: walk to where the player was last seen, then look around.
-- Runs until something stops it: the tree's timeout gives up the search.
bt.action("goToLastSeen", function(ctx, params)
  local a = ctx.agent
  if steer.moveTowards(a, a.playerX, a.playerY, params:number("goToLastSeen.speed", 2.5), ctx.dt) then
    a.heading = a.heading + 1.5 * ctx.dt
  end
  return bt.RUNNING
end)

-- throwGrenade: wind up for throwGrenade.seconds (default 1), then throw.
-- The tree's grenade gate lets one grunt of the game throw at a time, with
-- eight seconds between throws; ctx.memory counts this grunt's.
bt.action("throwGrenade", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("throwGrenade.seconds", 1)
  end,
  run = function(ctx, params)
    local a = ctx.agent
    local player = bt.shared.player
    a.heading = atan2(player.y - a.y, player.x - a.x)
    if ctx.time < ctx.state.untilTime then
      return bt.RUNNING
    end
    ctx.memory.grenades = (ctx.memory.grenades or 0) + 1
    ctx:log("grenade out")
    return bt.SUCCESS
  end,
})
