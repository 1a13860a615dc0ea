-- playerNearby / playerNotNearby: is the player within playerNearby.range
-- metres (default 5)? ctx.agent.distanceToPlayer is the world's, refreshed
-- every tick (SPEC §4's own example).
local bt = require("bt")

bt.condition("playerNearby", function(ctx, params)
  return ctx.agent.distanceToPlayer < params:number("playerNearby.range", 5)
end)

bt.condition("playerNotNearby", function(ctx, params)
  return ctx.agent.distanceToPlayer >= params:number("playerNearby.range", 5)
end)
