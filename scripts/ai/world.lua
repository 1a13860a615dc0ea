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
-- plugins can read them): x, y, heading, speed; grunts also post (an index
-- into arena.posts) and playerX, playerY: where the grunt last saw the
-- player (until it first does, where the player started, so that an alarm
-- sends it there), the spot the nav plugin chases; couriers pickupX,
-- pickupY, dropoffX, dropoffY. Other scripts find the player in
-- arena.player.
--
-- ctx.agent stays at eight fields or fewer: gopher-lua keeps a table's
-- string keys in a Go map, and a Go map with more than eight entries is a
-- bigger structure with two more pointers to follow on every read. With
-- thousands of agents, those are cache misses. What only the world needs
-- (whether a grunt sees the player) stays in the world's own records.
local bt = require("bt")
local arena = require("arena")
local steer = require("steer")

local world = {}

local path = { { 4, 4 }, { 36, 4 }, { 36, 26 }, { 20, 15 }, { 4, 26 } }
local posts = arena.posts
local SIGHT = 8 -- how far a grunt sees, m

-- Per-agent registries built by spawn: spawn runs again when a saved run
-- is continued, so only what changes later (sees) is saved, by world.save.
-- Grunts are kept in parallel lists (plain arrays: the tick walks them in
-- order, and an array read is cheaper than a record's field).
local grunts = {}   -- each grunt's ctx.agent, in spawn order
local gruntIds = {} -- its id
local sees = {}     -- whether it sees the player
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
    local k = #grunts % #posts + 1
    local post = posts[k]
    a.post = k
    a.x, a.y = post[1], post[2]
    a.playerX, a.playerY = arena.player.x, arena.player.y -- its briefing: where the player starts
    local n = #grunts + 1
    grunts[n], gruntIds[n], sees[n] = a, ctx.id, false
  elseif ctx.tree == "courier" then
    couriers = couriers + 1
    -- The spots sit across the player's path, so couriers meet the player.
    a.pickupX, a.pickupY = 8 + couriers % 5 * 6, 2
    a.dropoffX, a.dropoffY = 38, 8 + couriers % 3 * 6
  end
end

-- tick moves the player, then lets grunts see it. Perception is
-- time-sliced, as games do with their costlier senses: each grunt looks
-- every other tick (5 times a second with dt 0.1), odd-numbered grunts on
-- odd steps, so each tick checks half of them. A grunt that does not see
-- the player costs two field reads: its fields change only while it sees
-- the player (the spot it chases).
function world.tick(game)
  local p = arena.player
  local target = path[p.leg]
  if steer.moveTowards(p, target[1], target[2], p.speed, game.dt) then
    p.leg = p.leg % #path + 1
  end
  local px, py = p.x, p.y
  for i = 2 - game.step % 2, #grunts, 2 do
    local a = grunts[i]
    local dx, dy = px - a.x, py - a.y
    if dx * dx + dy * dy <= SIGHT * SIGHT then
      a.playerX, a.playerY = px, py
      if not sees[i] then
        sees[i] = true
        game.signal(gruntIds[i], "OnEnemySeen")
      end
    elseif sees[i] then
      sees[i] = false
      game.signal(gruntIds[i], "OnLostSightOfTarget")
    end
  end
end

function world.save()
  local p = arena.player
  local seeing = {}
  for i = 1, #grunts do
    if sees[i] then
      seeing[#seeing + 1] = gruntIds[i]
    end
  end
  return { player = { x = p.x, y = p.y, leg = p.leg, speed = p.speed }, seeing = seeing }
end

function world.load(t)
  local p = arena.player
  p.x, p.y, p.leg, p.speed = t.player.x, t.player.y, t.player.leg, t.player.speed
  local seeing = {}
  for _, id in ipairs(t.seeing or {}) do
    seeing[id] = true
  end
  for i = 1, #grunts do
    sees[i] = seeing[gruntIds[i]] == true
  end
end

return world
