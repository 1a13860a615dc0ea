-- chance: the seed tree's "chance" parameter (Drag[en]gine's example): the
-- probability that an action goes ahead when its rule is reached (default
-- 1). wander, turning and wait roll it when they start; one that lost the
-- roll fails at its first run, and the tree's choice tries the next rule.
local bt = require("bt")

local chance = {}

-- roll is true when the action goes ahead. When it does not, it marks the
-- rule's state (s.skip), which the action's run checks.
function chance.roll(ctx, params)
  if bt.random() < params:number("chance", 1) then
    return true
  end
  ctx.state.skip = true
  return false
end

return chance
