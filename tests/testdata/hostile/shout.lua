-- An error whose message is 3 MB long, raised at every step.
local bt = require("bt")
local message = string.rep("x", 3e6)
bt.action("act", function(ctx)
  error(message)
end)
