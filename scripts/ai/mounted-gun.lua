-- The mounted gun: a smart object that knows how it is used. It stands at
-- arena.gun; its behaviour is its own tree, mounted-gun.xml, which a grunt
-- grafts into its slot "use" when it reaches the gun (toGun below) and
-- which ungrafts itself when the grunt leaves it (the hook leaveGun). Who
-- mans it is the tree's gate mountedGun (one gunner at a time), so the
-- world keeps no state for it. These are the gun's actions, conditions
-- and hook; the grunt's tree (grunt.xml) uses toGun and gunInReach, the
-- gun's tree the rest.
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")

local atan2 = math.atan2
local gun = arena.gun
local GX, GY = gun.x, gun.y
local RANGE2, REACH2 = gun.RANGE * gun.RANGE, gun.REACH * gun.REACH

-- playerInRange: whether the player is within the gun's field of fire.
local function playerInRange()
  local player = bt.shared.player
  local dx, dy = player.x - GX, player.y - GY
  return dx * dx + dy * dy <= RANGE2
end

-- faceThePlayer turns the grunt (and the gun with it) to the player.
local function faceThePlayer(a)
  local player = bt.shared.player
  a.heading = atan2(player.y - a.y, player.x - a.x)
end

-- gunInReach: the gun is worth running to: it is within arena.gun.REACH of
-- the grunt, and the player is within its field of fire.
bt.condition("gunInReach", function(ctx, params)
  local a = ctx.agent
  local dx, dy = GX - a.x, GY - a.y
  return dx * dx + dy * dy <= REACH2 and playerInRange()
end)

-- gunInRange: the player is within the gun's field of fire (the gun's
-- tree fires while it is, and while the gunner sees the player).
bt.condition("gunInRange", function(ctx, params)
  return playerInRange()
end)

-- toGun: run to the gun (toGun.speed, default 3.5 m/s); on arrival take its
-- tree in hand (ctx:graft: the slot "use" runs it from its next entry).
bt.action("toGun", function(ctx, params)
  local a = ctx.agent
  if not steer.moveTowards(a, GX, GY, params:number("toGun.speed", 3.5), ctx.dt) then
    return bt.RUNNING
  end
  faceThePlayer(a)
  ctx:graft("use", "mounted-gun")
  return bt.SUCCESS
end)

-- gunBurst: fire gunBurst.rounds rounds (default 5), one every
-- gunBurst.interval seconds (default 0.2), swinging the gun onto the
-- player; ctx.memory counts this grunt's rounds.
bt.action("gunBurst", {
  start = function(ctx, params)
    ctx.memory.manned = true -- (leaveGun: this grunt did man the gun)
    local s = ctx.state
    s.left = params:number("gunBurst.rounds", 5)
    s.next = ctx.time
  end,
  run = function(ctx, params)
    local s = ctx.state
    faceThePlayer(ctx.agent)
    if ctx.time < s.next then
      return bt.RUNNING
    end
    s.left = s.left - 1
    s.next = ctx.time + params:number("gunBurst.interval", 0.2)
    local m = ctx.memory
    m.gunRounds = (m.gunRounds or 0) + 1
    if s.left > 0 then
      return bt.RUNNING
    end
    ctx:log("mounted gun fires a burst; " .. m.gunRounds .. " rounds so far")
    return bt.SUCCESS
  end,
})

-- gunTraverse: keep the gun on the player for gunTraverse.seconds
-- (default 0.5), then succeed.
bt.action("gunTraverse", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("gunTraverse.seconds", 0.5)
  end,
  run = function(ctx, params)
    faceThePlayer(ctx.agent)
    return ctx.time >= ctx.state.untilTime and bt.SUCCESS or bt.RUNNING
  end,
})

-- leaveGun: the exit hook of the gun's tree. However the grunt leaves the
-- gun (the player out of its field of fire or out of sight, the run's
-- end), or finds it manned by another grunt or cooling down (the gate
-- refused it), it puts the gun's tree down: the slot goes back to its
-- default from its next entry.
bt.hook("leaveGun", function(ctx, params, how)
  ctx:ungraft("use")
  local m = ctx.memory
  if m.manned then
    ctx:log("leaves the mounted gun (" .. how .. ")")
  else
    ctx:log("finds the mounted gun manned or cooling down")
  end
  m.manned = nil
end)
