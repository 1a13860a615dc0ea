-- playerNearby / playerNotNearby: is the player within playerNearby.range
-- metres (default 5)? The player is arena.player, moved by the world.
--
-- These run for every wandering agent every step, so the range is read
-- from the rule's parameters once per rule (params is one object per rule)
-- rather than on every call.
local bt = require("bt")
local arena = require("arena")

local within = arena.playerWithin
local ranges = {} -- params -> range

local function range(params)
  local r = ranges[params]
  if r == nil then
    r = params:number("playerNearby.range", 5)
    ranges[params] = r
  end
  return r
end

bt.condition("playerNearby", function(ctx, params)
  return within(ctx.agent, range(params))
end)

bt.condition("playerNotNearby", function(ctx, params)
  return not within(ctx.agent, range(params))
end)
