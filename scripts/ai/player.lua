-- playerNearby / playerNotNearby: is the player within playerNearby.range
-- metres (default 5)? The player is arena.player, moved by the world.
local bt = require("bt")
local arena = require("arena")

bt.condition("playerNearby", function(ctx, params)
  return arena.playerWithin(ctx.agent, params:number("playerNearby.range", 5))
end)

bt.condition("playerNotNearby", function(ctx, params)
  return not arena.playerWithin(ctx.agent, params:number("playerNearby.range", 5))
end)
