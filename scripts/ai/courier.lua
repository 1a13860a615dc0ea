-- Actions of the courier tree (courier.xml, leg.xml).
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")

-- The spot a leg walks to is named by the leg's subtree id: the rule
-- courier.rounds.pickup.go walks to the pickup spot. Labels are few and
-- string.match compiles its pattern on every call, so each label is parsed
-- once.
local spots = {}
local function spotOf(rule)
  local spot = spots[rule]
  if spot == nil then
    spot = rule:match("%.(%a+)%.go$")
    spots[rule] = spot
  end
  return spot
end

-- walkTo: walk to this leg's spot. Gets tired after a while (sets Tired),
-- and jumps to the interrupt rule when the player comes too close.
bt.action("walkTo", {
  run = function(ctx, params)
    local a = ctx.agent
    if arena.distanceToPlayer(a) < params:number("walkTo.fleeRange", 4) then
      ctx:jump("interrupt")
      return bt.RUNNING
    end
    local spot = spotOf(ctx.rule)
    local tx, ty = a[spot .. "X"], a[spot .. "Y"]
    local x0, y0 = a.x, a.y
    local arrived = steer.moveTowards(a, tx, ty, params:number("walkTo.speed", 2.5), ctx.dt)
    ctx.memory.walked = (ctx.memory.walked or 0) + steer.distance(x0, y0, a.x, a.y)
    if ctx.memory.walked > 40 then
      ctx.memory.walked = 0
      ctx:setVar("Tired", true)
    end
    return arrived and bt.SUCCESS or bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx:log("interrupted on the way to " .. spotOf(ctx.rule))
  end,
})

-- dodge: get away from the player for a few seconds.
bt.action("dodge", {
  start = function(ctx, params)
    ctx.state.untilTime = ctx.time + params:number("dodge.seconds", 2)
    ctx:log("dodging the player")
  end,
  run = function(ctx, params)
    local a = ctx.agent
    steer.moveAway(a, arena.player.x, arena.player.y, params:number("dodge.speed", 3.5), ctx.dt)
    return ctx.time >= ctx.state.untilTime and bt.SUCCESS or bt.RUNNING
  end,
})
