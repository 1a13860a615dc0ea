-- arena: the small 2D world the example agents live in, and the helpers the
-- example actions and conditions share. See docs/lua.md, "The example game".
--
-- The world script owns this table: it sets the bounds once and moves
-- arena.player every tick. Until a world exists, tests set arena.player
-- themselves. Agents keep their own position in ctx.agent (x, y, heading,
-- speed); arena.spawn(ctx) gives a new agent sensible values.
local bt = require("bt")

local arena = {
  -- The world spans [-width/2, width/2] x [-height/2, height/2] metres.
  width = 40,
  height = 40,
  -- The player: position (m) and speed (m/s). flee reads the speed.
  player = {x = 0, y = 0, speed = 0},
}

local sqrt, cos, sin, atan2, pi = math.sqrt, math.cos, math.sin, math.atan2, math.pi

-- roll: true with probability params.chance (default 1), using the run's
-- deterministic generator.
function arena.roll(params)
  return bt.random() < params:number("chance", 1)
end

function arena.distance(ax, ay, bx, by)
  local dx, dy = bx - ax, by - ay
  return sqrt(dx * dx + dy * dy)
end

function arena.distanceToPlayer(agent)
  local p = arena.player
  return arena.distance(agent.x, agent.y, p.x, p.y)
end

-- clamp keeps a point inside the arena.
function arena.clamp(x, y)
  local hw, hh = arena.width / 2, arena.height / 2
  if x < -hw then x = -hw elseif x > hw then x = hw end
  if y < -hh then y = -hh elseif y > hh then y = hh end
  return x, y
end

-- wrapAngle maps an angle to (-pi, pi].
function arena.wrapAngle(a)
  while a > pi do a = a - 2 * pi end
  while a <= -pi do a = a + 2 * pi end
  return a
end

-- moveTo walks agent toward (tx, ty) for dt seconds at speed and faces it;
-- it returns true once the agent is there.
function arena.moveTo(agent, tx, ty, speed, dt)
  local dx, dy = tx - agent.x, ty - agent.y
  local d = sqrt(dx * dx + dy * dy)
  local stepLen = speed * dt
  if d <= stepLen then
    agent.x, agent.y = tx, ty
    return true
  end
  agent.heading = atan2(dy, dx)
  agent.x = agent.x + dx / d * stepLen
  agent.y = agent.y + dy / d * stepLen
  return false
end

-- moveAway walks agent directly away from (fx, fy) for dt seconds at
-- speed, staying inside the arena (along the wall when it reaches one).
function arena.moveAway(agent, fx, fy, speed, dt)
  local dx, dy = agent.x - fx, agent.y - fy
  local d = sqrt(dx * dx + dy * dy)
  local h = d > 1e-9 and atan2(dy, dx) or agent.heading
  agent.heading = h
  agent.x, agent.y = arena.clamp(agent.x + cos(h) * speed * dt, agent.y + sin(h) * speed * dt)
end

-- spawn places a new agent at a random point of the arena, facing a random
-- way, walking at 1.5 m/s. A world script's spawn(ctx) may call it, then
-- change what it likes.
function arena.spawn(ctx)
  local a = ctx.agent
  a.x = (bt.random() - 0.5) * arena.width
  a.y = (bt.random() - 0.5) * arena.height
  a.heading = (bt.random() * 2 - 1) * pi
  a.speed = 1.5
end

return arena
