-- A step that lasts as long as the call timeout allows (an hour in the
-- test that uses it): it says when it has begun, then backtracks.
local bt = require("bt")
local subject = string.rep("a", 1e5)
bt.action("act", function(ctx)
  print("stalling in step " .. ctx.step)
  return string.find(subject, "(.-)*b") and bt.SUCCESS or bt.FAILURE
end)
