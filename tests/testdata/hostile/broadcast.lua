-- Every agent broadcasts a thousand signals a step.
local bt = require("bt")
bt.action("act", function(ctx)
  for i = 1, 1000 do
    bt.broadcast("Ping")
  end
  return bt.RUNNING
end)
