-- steer: movement helpers shared by the example game's actions and world.
-- Agents live in the arena (arena.WIDTH x arena.HEIGHT); positions are
-- ctx.agent.x / ctx.agent.y, headings in radians.
--
-- These run for thousands of agents every step, and in gopher-lua every
-- field read is a map look-up and every write two, so each function reads
-- each field once, writes each once, and keeps math functions in locals.

local arena = require("arena")

local sqrt, atan2, cos, sin, pi = math.sqrt, math.atan2, math.cos, math.sin, math.pi
local W, H = arena.WIDTH, arena.HEIGHT

local steer = {}

steer.WIDTH, steer.HEIGHT = W, H

function steer.distance(ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  return sqrt(dx * dx + dy * dy)
end

-- Moves body a towards (tx, ty) at speed for dt seconds; true on arrival.
function steer.moveTowards(a, tx, ty, speed, dt)
  local x, y = a.x, a.y
  local dx, dy = tx - x, ty - y
  local d = sqrt(dx * dx + dy * dy)
  local step = speed * dt
  if d <= step or d < 1e-9 then
    a.x, a.y, a.speed = tx, ty, 0
    return true
  end
  local k = step / d
  x, y = x + dx * k, y + dy * k
  if x < 0 then x = 0 elseif x > W then x = W end
  if y < 0 then y = 0 elseif y > H then y = H end
  a.x, a.y = x, y
  -- A walk keeps its heading and speed: write them only when they change
  -- (a read costs half a write).
  if a.speed ~= speed then
    a.speed = speed
  end
  local heading = atan2(dy, dx)
  if a.heading ~= heading then
    a.heading = heading
  end
  return false
end

-- A planned walk: most walks go in a straight line to a spot that does
-- not move (a wander target, a patrol point, a courier's pickup), so the
-- direction, the heading and the arrival time are worked out once, when the
-- walk starts, and every step only adds the velocity: two reads of the
-- walk, two of the body, two writes, no square root. plan writes the walk
-- into w (usually ctx.state), starting at time now (ctx.time), and turns
-- body a to face the spot; follow moves a along it and is true on arrival.
-- Both ends lie inside the arena, so every point between them does too: no
-- confining needed. A body that something else moves during the walk
-- keeps the walk's direction and lands on the spot when the time is up.
function steer.plan(w, a, now, tx, ty, speed)
  local dx, dy = tx - a.x, ty - a.y
  local d = sqrt(dx * dx + dy * dy)
  -- What follow reads every step is written first: gopher-lua keeps a
  -- table's keys in a Go map searched in insertion order.
  if d < 1e-9 or speed <= 0 then
    w.arrive = now
    w.vx = 0
    w.vy = 0
  else
    w.arrive = now + d / speed
    w.vx = dx / d * speed
    w.vy = dy / d * speed
    a.heading = atan2(dy, dx)
  end
  w.tx = tx
  w.ty = ty
  a.speed = speed
end

function steer.follow(w, a, now, dt)
  if now + dt >= w.arrive then
    a.x, a.y, a.speed = w.tx, w.ty, 0
    return true
  end
  a.x, a.y = a.x + w.vx * dt, a.y + w.vy * dt
  return false
end

-- Moves body a away from (fx, fy) at speed for dt seconds. The direction
-- away is the normalised offset from (fx, fy), so no cos or sin is needed;
-- a body standing on the spot turns a quarter to one side.
function steer.moveAway(a, fx, fy, speed, dt)
  local x, y = a.x, a.y
  local dx, dy = x - fx, y - fy
  local d2 = dx * dx + dy * dy
  local heading
  if d2 < 1e-18 then
    heading = a.heading + pi / 2
    dx, dy = cos(heading), sin(heading)
  else
    heading = atan2(dy, dx)
    local d = sqrt(d2)
    dx, dy = dx / d, dy / d
  end
  local step = speed * dt
  x, y = x + dx * step, y + dy * step
  if x < 0 then x = 0 elseif x > W then x = W end
  if y < 0 then y = 0 elseif y > H then y = H end
  a.x, a.y, a.heading = x, y, heading
  if a.speed ~= speed then
    a.speed = speed
  end
end

return steer
