-- swing runs for a step, then fails (its condition Near stays true).
local bt = require("bt")

local swings = {}

bt.action("swing", function(ctx)
  swings[ctx.id] = (swings[ctx.id] or 0) + 1
  if swings[ctx.id] % 2 == 1 then
    return bt.RUNNING
  end
  return bt.FAILURE
end)
