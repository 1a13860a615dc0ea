-- steer: movement helpers shared by the example game's actions and world.
-- Agents live in a 40 x 30 arena; positions are ctx.agent.x / ctx.agent.y,
-- headings in radians.

local steer = {}

local arena = require("arena")
steer.WIDTH, steer.HEIGHT = arena.WIDTH, arena.HEIGHT

function steer.distance(ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  return math.sqrt(dx * dx + dy * dy)
end

local function clamp(v, lo, hi)
  if v < lo then return lo elseif v > hi then return hi end
  return v
end

-- Keeps a body inside the arena.
function steer.confine(a)
  a.x = clamp(a.x, 0, steer.WIDTH)
  a.y = clamp(a.y, 0, steer.HEIGHT)
end

-- Moves body a towards (tx, ty) at speed for dt seconds; true on arrival.
function steer.moveTowards(a, tx, ty, speed, dt)
  local d = steer.distance(a.x, a.y, tx, ty)
  local step = speed * dt
  if d <= step or d < 1e-9 then
    a.x, a.y = tx, ty
    a.speed = 0
    return true
  end
  a.heading = math.atan2(ty - a.y, tx - a.x)
  a.x = a.x + (tx - a.x) / d * step
  a.y = a.y + (ty - a.y) / d * step
  a.speed = speed
  steer.confine(a)
  return false
end

-- Moves body a away from (fx, fy) at speed for dt seconds.
function steer.moveAway(a, fx, fy, speed, dt)
  local d = steer.distance(a.x, a.y, fx, fy)
  if d < 1e-9 then
    a.heading = a.heading + math.pi / 2
  else
    a.heading = math.atan2(a.y - fy, a.x - fx)
  end
  a.x = a.x + math.cos(a.heading) * speed * dt
  a.y = a.y + math.sin(a.heading) * speed * dt
  a.speed = speed
  steer.confine(a)
end

return steer
