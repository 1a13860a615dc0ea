-- Actions of the courier tree (courier.xml, leg.xml).
local bt = require("bt")
local steer = require("steer")
local arena = require("arena")

-- The spot a leg walks to is named by the leg's subtree id: the rule
-- courier.rounds.pickup.go walks to the pickup spot, whose position is in
-- ctx.agent.pickupX/pickupY. Labels are few, and string.match and ".."
-- cost an allocation each, so each label is turned into its field names
-- once.
local spots = {}
local function spotOf(rule)
  local spot = spots[rule]
  if spot == nil then
    local name = rule:match("%.(%a+)%.go$")
    spot = { name = name, x = name .. "X", y = name .. "Y" }
    spots[rule] = spot
  end
  return spot
end

-- walkTo: walk to this leg's spot. Gets tired after a while (sets Tired),
-- and jumps to the interrupt rule when the player comes too close.
bt.action("walkTo", {
  start = function(ctx, params)
    local s, spot = ctx.state, spotOf(ctx.rule)
    s.x, s.y = ctx.agent[spot.x], ctx.agent[spot.y]
    s.speed = params:number("walkTo.speed", 2.5)
    s.flee = params:number("walkTo.fleeRange", 4)
  end,
  run = function(ctx, params)
    local a, s = ctx.agent, ctx.state
    if arena.playerWithin(a, s.flee) then
      ctx:jump("interrupt")
      return bt.RUNNING
    end
    local arrived = steer.moveTowards(a, s.x, s.y, s.speed, ctx.dt)
    local m = ctx.memory
    local walked = (m.walked or 0) + s.speed * ctx.dt
    if walked > 40 then
      walked = 0
      ctx:setVar("Tired", true)
    end
    m.walked = walked
    return arrived and bt.SUCCESS or bt.RUNNING
  end,
  cancel = function(ctx, params)
    ctx:log("interrupted on the way to " .. spotOf(ctx.rule).name)
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
