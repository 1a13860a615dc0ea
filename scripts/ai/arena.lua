-- arena: what every script may know of the example game's world: its size
-- and where the player is. The world script moves the player; actions and
-- conditions read arena.player when they need it, so nothing has to copy
-- the player's position into thousands of agents every tick.
local arena = {}

arena.WIDTH, arena.HEIGHT = 40, 30

-- The player: position, the waypoint it walks to, and its speed.
arena.player = { x = 4, y = 4, leg = 2, speed = 3 }

-- distanceToPlayer is the distance from body a (ctx.agent) to the player.
function arena.distanceToPlayer(a)
  local p = arena.player
  local dx, dy = p.x - a.x, p.y - a.y
  return math.sqrt(dx * dx + dy * dy)
end

return arena
