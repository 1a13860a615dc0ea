-- playerNearby / playerNotNearby: is the player within playerNearby.range
-- metres (default 5)? The player is bt.shared.player, moved by the world.
--
-- These run for every wandering agent every step, so the range is read
-- from the rule's parameters once per rule (params is one object per rule)
-- rather than on every call.
local bt = require("bt")
local arena = require("arena")

local ranges = {} -- params -> range

local function range(params)
  local r = ranges[params]
  if r == nil then
    r = params:number("playerNearby.range", 5)
    ranges[params] = r
  end
  return r
end

-- The test is written out in each condition rather than shared through a
-- helper function: in gopher-lua a call costs as much as a few table reads,
-- and these two run every step.
bt.condition("playerNearby", function(ctx, params)
  local a, r = ctx.agent, ranges[params] or range(params)
  local player = bt.shared.player
  local dx, dy = player.x - a.x, player.y - a.y
  return dx * dx + dy * dy < r * r
end)

bt.condition("playerNotNearby", function(ctx, params)
  local a, r = ctx.agent, ranges[params] or range(params)
  local player = bt.shared.player
  local dx, dy = player.x - a.x, player.y - a.y
  return dx * dx + dy * dy >= r * r
end)
