-- A table that grows at every step and is never freed.
local bt = require("bt")
bt.action("act", function(ctx)
  local hoard = ctx.memory.hoard or {}
  ctx.memory.hoard = hoard
  for i = 1, 2000 do
    hoard[#hoard + 1] = {i, "item " .. #hoard}
  end
  return bt.RUNNING
end)
