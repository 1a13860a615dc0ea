-- world: the example game's little 2D world (SPEC §7's world module).
--
-- It owns the game state: the player (arena.player) walking a loop of
-- waypoints through the 40 x 30 arena, and what grunts perceive. Each tick
-- it moves the player and lets every grunt see or lose it: a grunt that
-- starts seeing the player gets OnEnemySeen, one that stops gets
-- OnLostSightOfTarget (the CryEngine way: perception sends signals, the
-- tree's variables and timestamps remember them).
--
-- What it keeps in each agent's ctx.agent (plain values, so that saves and
-- plugins can read them): x, y, heading, speed; grunts also postX, postY,
-- sight, seesPlayer, lastSeenX, lastSeenY and the player's position
-- playerX, playerY and distanceToPlayer (the nav plugin chases playerX/Y);
-- couriers pickupX, pickupY, dropoffX, dropoffY. Other scripts find the
-- player in arena.player.
local bt = require("bt")
local arena = require("arena")
local steer = require("steer")

local world = {}

local path = { { 4, 4 }, { 36, 4 }, { 36, 26 }, { 20, 15 }, { 4, 26 } }
local posts = { { 34, 6 }, { 20, 13 }, { 6, 24 }, { 30, 22 } }

-- Per-agent registries built by spawn: spawn runs again when a saved run
-- is continued, so these are never saved.
local grunts = {}   -- { id =, agent = ctx.agent } of every grunt, in spawn order
local couriers = 0

function world.init(game)
  local p = arena.player
  p.x, p.y, p.leg, p.speed = path[1][1], path[1][2], 2, 3
  game.log("arena " .. arena.WIDTH .. " x " .. arena.HEIGHT .. ", " .. #game.ids .. " agents, seed " .. game.seed)
end

function world.spawn(ctx)
  local a = ctx.agent
  a.x = 2 + bt.random() * (arena.WIDTH - 4)
  a.y = 2 + bt.random() * (arena.HEIGHT - 4)
  a.heading = bt.random() * 2 * math.pi
  a.speed = 0
  if ctx.tree == "grunt" then
    local post = posts[#grunts % #posts + 1]
    a.postX, a.postY = post[1], post[2]
    a.x, a.y = post[1], post[2]
    a.sight = 8
    a.seesPlayer = false
    a.lastSeenX, a.lastSeenY = a.x, a.y
    grunts[#grunts + 1] = { id = ctx.id, agent = a }
    world.observe(a)
  elseif ctx.tree == "courier" then
    couriers = couriers + 1
    -- The spots sit across the player's path, so couriers meet the player.
    a.pickupX, a.pickupY = 8 + couriers % 5 * 6, 2
    a.dropoffX, a.dropoffY = 38, 8 + couriers % 3 * 6
  end
end

-- observe refreshes what a grunt knows of the player.
function world.observe(a)
  local p = arena.player
  a.playerX, a.playerY = p.x, p.y
  a.distanceToPlayer = arena.distanceToPlayer(a)
end

-- tick moves the player, then lets grunts see it. A grunt that does not see
-- the player costs four field reads: its fields change only while it sees
-- the player (what it chases and shoots at) and when it stops seeing it.
function world.tick(game)
  local p = arena.player
  local target = path[p.leg]
  if steer.moveTowards(p, target[1], target[2], p.speed, game.dt) then
    p.leg = p.leg % #path + 1
  end
  local px, py = p.x, p.y
  for i = 1, #grunts do
    local g = grunts[i]
    local a = g.agent
    local dx, dy, r = px - a.x, py - a.y, a.sight
    if dx * dx + dy * dy <= r * r then
      world.observe(a)
      a.lastSeenX, a.lastSeenY = px, py
      if not a.seesPlayer then
        a.seesPlayer = true
        game.signal(g.id, "OnEnemySeen")
      end
    elseif a.seesPlayer then
      a.seesPlayer = false
      game.signal(g.id, "OnLostSightOfTarget")
    end
  end
end

function world.save()
  local p = arena.player
  return { player = { x = p.x, y = p.y, leg = p.leg, speed = p.speed } }
end

function world.load(t)
  local p = arena.player
  p.x, p.y, p.leg, p.speed = t.player.x, t.player.y, t.player.leg, t.player.speed
end

return world
