-- Catastrophic backtracking: Lua's matcher would try this for hours.
local bt = require("bt")
local subject = string.rep("a", 1e5)
bt.action("act", function(ctx)
  return string.find(subject, "(.-)*b") and bt.SUCCESS or bt.FAILURE
end)
