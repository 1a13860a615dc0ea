-- The lookout tree's eyes and search (lookout.xml). ctx.agent.sees says
-- whether the lookout sees the player; lastX/lastY where it last saw it.
local bt = require("bt")
local arena = require("arena")
local steer = require("steer")

local SIGHT2 = arena.SIGHT * arena.SIGHT

-- spot: always true; a lookout that starts seeing the player signals itself
-- OnEnemySeen, one that stops OnLostSightOfTarget (its state machine's
-- transitions), and while it sees the player it keeps where.
bt.condition("spot", function(ctx, params)
  local a = ctx.agent
  local player = bt.shared.player
  local dx, dy = player.x - a.x, player.y - a.y
  local sees = dx * dx + dy * dy <= SIGHT2
  if sees then
    a.lastX, a.lastY = player.x, player.y
  end
  if sees ~= (a.sees == true) then
    a.sees = sees
    ctx:signal(sees and "OnEnemySeen" or "OnLostSightOfTarget")
  end
  return true
end)

-- search: walk to where the player was last seen; succeeds there.
-- Parameter: search.speed (m/s, default 2).
bt.action("search", {
  start = function(ctx, params)
    local a = ctx.agent
    steer.plan(ctx.state, a, ctx.time, a.lastX or a.x, a.lastY or a.y, params:number("search.speed", 2))
  end,
  run = function(ctx, params)
    if steer.follow(ctx.state, ctx.agent, ctx.time, ctx.dt) then
      return bt.SUCCESS
    end
    return bt.RUNNING
  end,
})
