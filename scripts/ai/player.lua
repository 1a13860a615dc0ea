-- playerNearby / playerNotNearby: is the player within
-- playerNearby.range metres (default 5) of the agent?
local bt = require("bt")
local arena = require("arena")

local function nearby(ctx, params)
  return arena.distanceToPlayer(ctx.agent) < params:number("playerNearby.range", 5)
end

bt.condition("playerNearby", function(ctx, params)
  return nearby(ctx, params)
end)

bt.condition("playerNotNearby", function(ctx, params)
  return not nearby(ctx, params)
end)
