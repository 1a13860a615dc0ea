-- world: the example game's little 2D world (the world module of the game
-- config: init, spawn, tick, save, load).
--
-- It owns the player (walking a loop of waypoints through the 40 x 30
-- arena) and publishes where it is each tick in game.shared, which every
-- agent reads as bt.shared.player. It never writes into agents' tables:
-- agents may step on several threads, each with its own Lua state, and the
-- world reaches them through bt.shared and signals only. Grunts see the
-- player with their own eyes (grunt.lua's look), so what they perceive
-- does not depend on where agents run.
--
-- What spawn puts in each agent's ctx.agent (plain values, so that saves
-- and plugins can read them): x, y, heading, speed; grunts also post (an
-- index into arena.posts, from the number of its id), sees (whether it sees
-- the player: grunt.lua's look) and playerX, playerY:
-- where the grunt last saw the player (until it first does, where the
-- player starts, so that an alarm sends it there), the spot the nav plugin
-- chases; couriers pickupX, pickupY, dropoffX, dropoffY.
--
-- ctx.agent stays at eight fields or fewer: gopher-lua keeps a table's
-- string keys in a Go map, and a Go map with more than eight entries is a
-- bigger structure with two more pointers to follow on every read. With
-- thousands of agents, those are cache misses.
local bt = require("bt")
local arena = require("arena")
local steer = require("steer")

local world = {}

local path = arena.path
local posts = arena.posts

-- The player, and what the world publishes of it (game.shared).
local player = { x = path[1][1], y = path[1][2], leg = 2, speed = arena.PLAYER_SPEED }
-- medics: how many medics there are (medic-1, medic-2, ...), whom hurt
-- couriers call (courier.lua). A number, not a list: game.shared is copied
-- to every agent's Lua state at each tick.
local shared = { player = { x = player.x, y = player.y }, medics = 0 }

local function publish(game)
  shared.player.x, shared.player.y = player.x, player.y
  game.shared = shared
end

function world.init(game)
  shared.medics = 0
  for _, id in ipairs(game.ids) do
    if id:match("^medic%-") then
      shared.medics = shared.medics + 1
    end
  end
  player.x, player.y, player.leg, player.speed = path[1][1], path[1][2], 2, arena.PLAYER_SPEED
  publish(game)
  game.log("arena " .. arena.WIDTH .. " x " .. arena.HEIGHT .. ", " .. #game.ids .. " agents, seed " .. game.seed)
  game.log("mounted gun at " .. arena.gun.x .. ", " .. arena.gun.y)
end

-- spawn runs on the agent's own Lua state: it uses only the agent (its id
-- and its generator) and constants, never what other spawns did.
function world.spawn(ctx)
  local a = ctx.agent
  a.x = 2 + bt.random() * (arena.WIDTH - 4)
  a.y = 2 + bt.random() * (arena.HEIGHT - 4)
  a.heading = bt.random() * 2 * math.pi
  a.speed = 0
  local n = arena.number(ctx.id)
  if ctx.tree == "grunt" then
    local k = (n - 1) % #posts + 1
    local post = posts[k]
    a.post, a.sees = k, false
    a.x, a.y = post[1], post[2]
    a.playerX, a.playerY = path[1][1], path[1][2] -- its briefing: where the player starts
  elseif ctx.tree == "courier" then
    -- The spots sit across the player's path, so couriers meet the player.
    a.pickupX, a.pickupY = 8 + n % 5 * 6, 2
    a.dropoffX, a.dropoffY = 38, 8 + n % 3 * 6
  end
end

-- tick moves the player along its path and publishes where it is.
function world.tick(game)
  local target = path[player.leg]
  -- (moveTowards stops what arrives: the player walks at the arena's
  -- speed, not at the speed it had when it reached the last waypoint)
  if steer.moveTowards(player, target[1], target[2], arena.PLAYER_SPEED, game.dt) then
    player.leg = player.leg % #path + 1
  end
  publish(game)
end

function world.save()
  return { player = { x = player.x, y = player.y, leg = player.leg, speed = player.speed } }
end

function world.load(t)
  player.x, player.y, player.leg, player.speed = t.player.x, t.player.y, t.player.leg, t.player.speed
  shared.player.x, shared.player.y = player.x, player.y
end

return world
