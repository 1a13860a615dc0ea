-- arena: what every script may know of the example game's world that never
-- changes: its size, the grunts' posts, the couriers' crossroads, the
-- player's walk. Module tables are read-only while agents step (they may
-- step on several threads): where the player is now is published by the
-- world script each tick, and actions and conditions read it as
-- bt.shared.player, so nothing has to copy the player's position into
-- thousands of agents every tick.
local arena = {}

arena.WIDTH, arena.HEIGHT = 40, 30

-- The grunts' posts; a grunt's ctx.agent.post is an index into this list.
arena.posts = { { 34, 6 }, { 20, 13 }, { 6, 24 }, { 30, 22 } }

-- Where couriers meet to swap parcels.
arena.crossroads = { x = 24, y = 10 }

-- The player's walk: a loop of waypoints, at PLAYER_SPEED m/s.
arena.path = { { 4, 4 }, { 36, 4 }, { 36, 26 }, { 20, 15 }, { 4, 26 } }
arena.PLAYER_SPEED = 3

-- SIGHT is how far a grunt sees, m.
arena.SIGHT = 8

-- The mounted gun (a smart object: its tree, mounted-gun.xml, is grafted
-- into a grunt that takes it; mounted-gun.lua). It stands at x, y, by the
-- south-east corner of the player's walk, fires at what is within RANGE of
-- it, and a fighting grunt runs to it when it is within REACH and the
-- player within RANGE.
arena.gun = { x = 33, y = 23, RANGE = 8, REACH = 8 }

-- number is the number at the end of an agent's id (grunt-7: 7), which
-- gives each agent its post or spot whatever order agents spawn in.
function arena.number(id)
  return tonumber(id:match("(%d+)$")) or 1
end

return arena
