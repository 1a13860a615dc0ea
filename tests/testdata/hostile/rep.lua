-- A string of a terabyte.
local bt = require("bt")
bt.action("act", function(ctx)
  local s = string.rep("x", 2^40)
  return bt.SUCCESS
end)
