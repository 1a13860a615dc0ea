-- Every agent sends a thousand signals to another agent a step.
local bt = require("bt")
bt.action("act", function(ctx)
  for i = 1, 1000 do
    ctx:send("t-1", "Ping")
  end
  return bt.RUNNING
end)
