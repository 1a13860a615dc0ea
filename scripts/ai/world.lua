-- world: the example game's little 2D world (SPEC §7's world module).
--
-- It owns the game state: a player walking a loop of waypoints through a
-- 40 x 30 arena. Each tick it moves the player, tells every agent where the
-- player is (ctx.agent.playerX/playerY/distanceToPlayer), and lets grunts see
-- and lose the player by sending them signals.
--
-- What it keeps in each agent's ctx.agent (plain numbers, so that saves and
-- plugins can read them): x, y, heading, speed, playerX, playerY,
-- distanceToPlayer; grunts: postX, postY, sight, seesPlayer, lastSeenX,
-- lastSeenY; couriers: pickupX, pickupY, dropoffX, dropoffY.
local bt = require("bt")
local steer = require("steer")

local world = {}

local path = { { 4, 4 }, { 36, 4 }, { 36, 26 }, { 20, 15 }, { 4, 26 } }
local state -- { player = { x, y, leg, speed } }

local function newState()
  return { player = { x = path[1][1], y = path[1][2], leg = 2, speed = 3 } }
end

function world.init(game)
  state = newState()
  game.log("arena " .. steer.WIDTH .. " x " .. steer.HEIGHT .. ", " .. #game.ids .. " agents, seed " .. game.seed)
end

local posts = { { 34, 6 }, { 20, 13 }, { 6, 24 }, { 30, 22 } }
local grunts, couriers = 0, 0

function world.spawn(ctx)
  local a = ctx.agent
  a.x = 2 + bt.random() * (steer.WIDTH - 4)
  a.y = 2 + bt.random() * (steer.HEIGHT - 4)
  a.heading = bt.random() * 2 * math.pi
  a.speed = 0
  if ctx.tree == "grunt" then
    grunts = grunts + 1
    local post = posts[(grunts - 1) % #posts + 1]
    a.postX, a.postY = post[1], post[2]
    a.x, a.y = post[1], post[2]
    a.sight = 8
    a.seesPlayer = false
    a.lastSeenX, a.lastSeenY = a.x, a.y
  elseif ctx.tree == "courier" then
    couriers = couriers + 1
    -- The spots sit across the player's path, so couriers meet the player.
    a.pickupX, a.pickupY = 8 + couriers * 6, 2
    a.dropoffX, a.dropoffY = 38, 8 + couriers * 6
  end
  world.observe(a)
end

-- observe refreshes what an agent knows of the player.
function world.observe(a)
  local p = state.player
  a.playerX, a.playerY = p.x, p.y
  a.distanceToPlayer = steer.distance(a.x, a.y, p.x, p.y)
end

function world.tick(game)
  local p = state.player
  local target = path[p.leg]
  if steer.moveTowards(p, target[1], target[2], p.speed, game.dt) then
    p.leg = p.leg % #path + 1
  end
  for _, id in ipairs(game.ids) do
    local a = game.agents[id]
    world.observe(a)
    if game.trees[id] == "grunt" then
      local sees = a.distanceToPlayer <= a.sight
      if sees then
        a.lastSeenX, a.lastSeenY = p.x, p.y
      end
      if sees and not a.seesPlayer then
        game.signal(id, "OnEnemySeen")
      elseif a.seesPlayer and not sees then
        game.signal(id, "OnLostSightOfTarget")
      end
      a.seesPlayer = sees
    end
  end
end

function world.save()
  return { player = state.player, grunts = grunts, couriers = couriers }
end

function world.load(t)
  state = { player = t.player }
  grunts, couriers = t.grunts, t.couriers
end

return world
