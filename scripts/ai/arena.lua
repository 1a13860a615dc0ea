-- arena: what every script may know of the example game's world: its size
-- and where the player is. The world script moves the player; actions and
-- conditions read arena.player when they need it, so nothing has to copy
-- the player's position into thousands of agents every tick.
local arena = {}

arena.WIDTH, arena.HEIGHT = 40, 30

-- The grunts' posts; a grunt's ctx.agent.post is an index into this list.
arena.posts = { { 34, 6 }, { 20, 13 }, { 6, 24 }, { 30, 22 } }

-- Where couriers meet to swap parcels.
arena.crossroads = { x = 24, y = 10 }

-- The player: position, the waypoint it walks to, and its speed.
arena.player = { x = 4, y = 4, leg = 2, speed = 3 }

return arena
