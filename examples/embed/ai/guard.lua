-- The courtyard's Lua action. ctx.agent is the guard's unit, the program's
-- own Go value: reading and writing its fields (by their bt tags) reads and
-- writes the unit, its table fields included.
local bt = require("bt")

-- chase runs at the thief; it succeeds when it is close enough to catch it.
bt.action("chase", function(ctx, params)
  local a = ctx.agent
  local dx, dy = a.thiefX - a.x, a.thiefY - a.y
  local d = math.sqrt(dx * dx + dy * dy)
  if d < 0.5 then
    a.caught = true
    a.catches[#a.catches + 1] = {x = a.x, y = a.y} -- a table field: the Go slice grows
    ctx:log("caught the thief")
    return bt.SUCCESS
  end
  local step = math.min(params:number("chase.speed", 1) * ctx.dt, d)
  a.x = a.x + dx / d * step
  a.y = a.y + dy / d * step
  return bt.RUNNING
end)
