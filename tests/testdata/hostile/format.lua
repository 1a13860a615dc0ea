-- Widths of Go's fmt (up to a million) on a long format string.
local bt = require("bt")
bt.action("act", function(ctx)
  local s = string.format(string.rep("%99d", 1e6), 1)
  return bt.SUCCESS
end)
